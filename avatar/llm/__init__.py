"""The diffusion language model: loader, model families, the decode loop, structured infilling."""
from avatar.llm.engine import Block, DecodeOptions, DecodeResult
from avatar.llm.families import FAMILIES, Family, detect_family, get_family
from avatar.llm.infill import InfillResult, Slot

__all__ = ["Block", "DecodeOptions", "DecodeResult", "FAMILIES", "Family", "detect_family", "get_family",
           "InfillResult", "Slot", "load_model", "DiffusionLM"]


def __getattr__(name: str):
    # the loader imports transformers (slow): only when a model is actually loaded
    if name == "load_model":
        from avatar.llm.loader import load_model
        return load_model
    if name == "DiffusionLM":
        from avatar.llm.diffusion_lm import DiffusionLM
        return DiffusionLM
    raise AttributeError(name)
