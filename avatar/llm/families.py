"""Model families as data: what differs between masked-diffusion checkpoints is a row of this table.

A family says which token is the mask, which tokens end a reply, how to build a chat prompt,
whether logits are shifted by one (models adapted from autoregressive ones predict token i at
position i-1), and how attention is laid out (which decides how exact a prompt cache can be).
Token ids left as None are resolved from the checkpoint's tokenizer by their token strings.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avatar.errors import ModelError

# Attention layouts, and the prompt cache each allows.
BIDIRECTIONAL = "bidirectional"          # every position sees every other: cache is approximate
PROMPT_CAUSAL = "prompt-causal"          # prompt ignores the answer: exact prompt cache
CAUSAL_AR_ADAPTED = "causal-ar-adapted"  # left-to-right attention kept from the AR parent: exact prefix cache
CAUSAL = "causal"                        # a plain autoregressive model: exact KV cache

# How a family's replies are decoded: the masked-diffusion loop (engine.py), or one token per
# forward pass left to right with a KV cache (ar_engine.py, the diffusion model's AR twin).
DIFFUSION, AUTOREGRESSIVE = "diffusion", "autoregressive"


@dataclass(frozen=True)
class Family:
    name: str
    description: str
    attention: str
    logit_shift: bool = False
    mask_token: str | None = None              # None: the tokenizer's own mask token
    mask_token_id: int | None = None
    eos_tokens: tuple[str, ...] = ()           # EOS and end-of-turn tokens; () = the tokenizer's eos/sep
    eos_token_ids: tuple[int, ...] = ()
    pad_token: str | None = None
    chat_template: str | None = None           # fallback "{system}"/"{user}" format when the tokenizer has none
    default_system: str = ""
    auto_class: str = "AutoModelForMaskedLM"   # used when config.json's architecture does not say
    remote_code: bool = False                  # modelling code ships inside the (local) folder
    kv_cache: bool = True                      # False: the modelling code cannot take a KV cache
    model_types: tuple[str, ...] = ()          # config.json model_type values that identify the family
    architectures: tuple[str, ...] = ()
    name_hints: tuple[str, ...] = ()           # lower-case substrings of the folder/_name_or_path
    defaults: dict[str, Any] = field(default_factory=dict)  # DecodeOptions the family decodes best with
    verified: bool = False                     # False: ids and template from model cards, not a loaded checkpoint
    decoder: str = DIFFUSION                   # DIFFUSION | AUTOREGRESSIVE: which decode loop

    @property
    def cache_kind(self) -> str:
        """exact | approximate | none: what a prompt cache can be for this family."""
        if not self.kv_cache and self.attention != PROMPT_CAUSAL:
            return "none"
        return "approximate" if self.attention == BIDIRECTIONAL else "exact"


_CHATML = ("<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
           "<|im_start|>assistant\n")

FAMILIES: dict[str, Family] = {f.name: f for f in [
    Family(
        name="llada", description="LLaDA-8B-Instruct (GSAI-ML): bidirectional masked diffusion",
        attention=BIDIRECTIONAL, mask_token="<|mdm_mask|>", mask_token_id=126336,
        eos_tokens=("<|endoftext|>", "<|eot_id|>"), eos_token_ids=(126081, 126348),
        chat_template=("<|startoftext|><|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>"
                       "<|start_header_id|>user<|end_header_id|>\n\n{user}<|eot_id|>"
                       "<|start_header_id|>assistant<|end_header_id|>\n\n"),
        auto_class="AutoModel", remote_code=True, kv_cache=False,  # its modelling code refuses a KV cache
        model_types=("llada",), architectures=("LLaDAModelLM",), name_hints=("llada",),
        defaults={"gen_length": 128, "block_length": 32, "threshold": 0.9}),
    Family(
        name="dream", description="Dream-v0-Instruct-7B: bidirectional diffusion adapted from Qwen2.5 (shifted logits)",
        attention=BIDIRECTIONAL, logit_shift=True, mask_token="<|mask|>", mask_token_id=151666,
        eos_tokens=("<|endoftext|>", "<|im_end|>"), eos_token_ids=(151643, 151645), pad_token="<|endoftext|>",
        chat_template=_CHATML, default_system="You are a helpful assistant.",
        auto_class="AutoModel", remote_code=True,
        model_types=("dream",), architectures=("DreamModel",), name_hints=("dream",),
        defaults={"gen_length": 128, "block_length": 32, "threshold": 0.9}),
    Family(
        name="modernbert-chat", description="dllm's ModernBERT chat models (ModernBertForMaskedLM, bidirectional)",
        attention=BIDIRECTIONAL, chat_template="{system}\n{user}\n", auto_class="AutoModelForMaskedLM",
        kv_cache=False,  # ModernBERT's forward takes no KV cache
        model_types=("modernbert",), architectures=("ModernBertForMaskedLM",), name_hints=("modernbert",),
        defaults={"gen_length": 64, "block_length": 32, "threshold": 0.9}),
    Family(
        name="fast-dllm-v2", description="Fast-dLLM v2 (block diffusion from Qwen2.5, causal across blocks, shifted)",
        attention=CAUSAL_AR_ADAPTED, logit_shift=True, mask_token="|<MASK>|",
        eos_tokens=("<|endoftext|>", "<|im_end|>"), eos_token_ids=(151643, 151645),
        chat_template=_CHATML, default_system="You are a helpful assistant.",
        auto_class="AutoModelForCausalLM", remote_code=True,
        model_types=("fast_dllm_qwen", "fast_dllm_v2"), name_hints=("fast_dllm", "fast-dllm"),
        defaults={"gen_length": 128, "block_length": 32, "threshold": 0.9}),
    Family(
        name="sdar", description="SDAR (JetLM) block diffusion chat models, causal across blocks",
        attention=CAUSAL_AR_ADAPTED, mask_token="<|MASK|>",
        eos_tokens=("<|endoftext|>", "<|im_end|>"), chat_template=_CHATML,
        default_system="You are a helpful assistant.", auto_class="AutoModelForCausalLM", remote_code=True,
        model_types=("sdar",), architectures=("SDARForCausalLM",), name_hints=("sdar",),
        defaults={"gen_length": 128, "block_length": 4, "threshold": 0.9}),
    Family(
        name="avatar-mdlm", description="the project's embedded bilingual model (prompt attends only to itself)",
        attention=PROMPT_CAUSAL, mask_token="<mask>", eos_tokens=("<eos>",), pad_token="<pad>",
        # system = the facts, each after <fact>; the answerer builds richer prompts with avatar.answer.prompt
        chat_template="<bos>{system}<sep>{user}<sep>", auto_class="AutoModel",
        model_types=("avatar-mdlm",), architectures=("AvatarMDLM",), name_hints=("avatar-mdlm",),
        defaults={"gen_length": 48, "block_length": 16, "threshold": 0.9}, verified=True),
    Family(
        name="avatar-ar", description="the embedded model's autoregressive twin (issue 15): causal, KV cache, greedy",
        attention=CAUSAL, mask_token="<mask>", eos_tokens=("<eos>",), pad_token="<pad>",
        chat_template="<bos>{system}<sep>{user}<sep>", auto_class="AutoModel", decoder=AUTOREGRESSIVE,
        model_types=("avatar-ar",), architectures=("AvatarAR",), name_hints=("avatar-ar",),
        defaults={"gen_length": 48, "block_length": 16, "threshold": 0.9}, verified=True),
    Family(
        name="masked-lm", description="any Hugging Face *ForMaskedLM with a mask token (BERT, RoBERTa, ...)",
        attention=BIDIRECTIONAL, chat_template="{system}\n{user}\n", auto_class="AutoModelForMaskedLM",
        kv_cache=False, defaults={"gen_length": 32, "block_length": 16, "threshold": 0.9}),
]}


def get_family(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise ModelError(f"unknown model family '{name}'",
                         hint=f"known families: {', '.join(FAMILIES)}") from None


def read_config(folder: Path) -> dict[str, Any]:
    path = Path(folder) / "config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{folder} has no config.json, so it is not a Hugging Face model folder",
                         hint="point --model / llm.model at a folder with config.json, *.safetensors and tokenizer.json") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path} is not valid JSON ({exc})", hint="the download or copy is corrupt; copy the folder again") from None


def detect_family(config: dict[str, Any], folder: Path | None = None) -> Family:
    """The family a config.json belongs to: by model_type, then architecture, then name."""
    model_type = str(config.get("model_type", "")).lower()
    architectures = tuple(config.get("architectures") or ())
    for family in FAMILIES.values():
        if model_type and model_type in family.model_types:
            return family
    for family in FAMILIES.values():
        if set(architectures) & set(family.architectures):
            return family
    names = f"{config.get('_name_or_path', '')} {folder.name if folder else ''}".lower()
    for family in FAMILIES.values():
        if any(hint in names for hint in family.name_hints):
            return family
    if any(a.endswith("ForMaskedLM") for a in architectures):
        return FAMILIES["masked-lm"]
    raise ModelError(f"cannot tell which diffusion model family {folder or 'this model'} is "
                     f"(model_type '{model_type}', architectures {list(architectures)})",
                     hint=f"pass family= / --set llm.family=NAME, one of: {', '.join(FAMILIES)}")
