"""Load any local Hugging Face model folder as a DiffusionLM: weights, tokenizer, family, device.

Nothing is ever downloaded: transformers runs with local_files_only (and HF_HUB_OFFLINE). A folder
that is not a usable model raises ModelError with a hint; CUDA asked for but absent raises
DeviceError. A shipped model (listed in models/manifest.toml) is checked against its sha256 first
(avatar/integrity.py); a caller that writes a particular token record (the answerer) names the
tokens it needs, and a model whose tokenizer lacks them is refused here, not mid-answer.
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers is imported: never reach the hub

import logging
from pathlib import Path
from typing import Any, Sequence

from avatar.errors import DeviceError, ModelError
from avatar.llm.diffusion_lm import DiffusionLM
from avatar.llm.families import BIDIRECTIONAL, Family, detect_family, get_family, read_config
from avatar.paths import resolve
from avatar.settings import Llm

log = logging.getLogger(__name__)

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.txt", "vocab.json")
_DTYPES = ("float32", "bfloat16", "float16", "float64")


def load_configured(llm: Llm, path: str | os.PathLike | None = None, **kwargs: Any) -> DiffusionLM:
    """The model the [llm] settings name (or `path`), with their family, device, threads, dtype and backend."""
    settings = {"family": llm.family or None, "device": llm.device, "threads": llm.threads,
                "dtype": llm.dtype, "backend": llm.backend}
    return load_model(path or llm.model, **{**settings, **kwargs})


def load_model(path: str | os.PathLike, family: str | Family | None = None, device: str = "cpu",
               threads: int | None = None, dtype: str = "auto", needs_tokens: Sequence[str] = (),
               purpose: str = "", backend: str = "auto", listed_only: bool = False) -> DiffusionLM:
    """needs_tokens: tokens the caller writes (e.g. the answerer's reply record); purpose names the
    caller in the refusal ("the kiosk's answerer"). backend "auto": the embedded model on the CPU in
    float32 runs in numpy (numpy_mdlm.py), everything else in torch; "torch": always torch.
    listed_only: a folder whose sha256 no manifest lists is refused (integrity.check_model). A model
    whose first forward pass gives NaN or infinite logits is refused in any case."""
    from avatar.integrity import check_model

    folder = resolve(path)
    if not folder.is_dir():
        raise ModelError(f"model folder not found: {folder}",
                         hint="train or import the model (avatar models), or point --model / llm.model at a model folder")
    config = read_config(folder)
    _check_weights(folder)
    check_model(folder, listed_only)  # a listed model's sha256; cached by size and mtime, so later starts only stat
    if not any((folder / name).is_file() for name in _TOKENIZER_FILES):
        raise ModelError(f"{folder} has no tokenizer (tokenizer.json)",
                         hint="copy the tokenizer files (tokenizer.json, tokenizer_config.json) into the model folder")
    fam = family if isinstance(family, Family) else get_family(family) if family else detect_family(config, folder)
    if device not in ("cpu", "cuda"):
        raise DeviceError(f"unknown llm.device '{device}'", hint="use cpu or cuda")
    if dtype != "auto" and dtype not in _DTYPES:
        raise ModelError(f"unknown llm.dtype '{dtype}'", hint=f"use auto or one of {', '.join(_DTYPES)}")

    if backend not in ("auto", "torch"):
        raise ModelError(f"unknown llm.backend '{backend}'", hint="use auto or torch")
    numpy_ok = backend == "auto" and device == "cpu" and dtype in ("auto", "float32")
    native = _load_native(folder, config, fam) if numpy_ok else None
    if native is not None:  # the shipped embedded model in numpy: neither torch nor transformers imported
        model, tokenizer = native
        _check_needed_tokens(folder, fam, tokenizer, needs_tokens, purpose)
        if threads:
            limit_blas_threads(int(threads))
    else:
        model, tokenizer = _load_torch(folder, config, fam, device, threads, dtype, needs_tokens, purpose)
    vocab_size = int(getattr(model.config, "vocab_size", 0) or len(tokenizer))
    mask_id = _mask_id(tokenizer, fam, config, vocab_size)
    if mask_id is None:
        raise ModelError(f"{folder}: no mask token found (family '{fam.name}' expects {fam.mask_token or 'the tokenizer mask token'})",
                         hint="a masked-diffusion model needs a mask token in its tokenizer; check the family (--set llm.family=...)")
    eos_ids = _eos_ids(tokenizer, fam, config, vocab_size)
    if not eos_ids:
        raise ModelError(f"{folder}: no end-of-sequence token found",
                         hint="the tokenizer needs an eos (or sep) token so replies can end early")
    pad_id = _token_id(tokenizer, fam.pad_token, vocab_size) if fam.pad_token else None
    if pad_id is None and tokenizer.pad_token_id is not None and tokenizer.pad_token_id not in (mask_id,):
        pad_id = int(tokenizer.pad_token_id)
    # a stock left-to-right architecture in a bidirectional family (Dream-style) gets an all-visible mask
    stock_causal = type(model).__name__.endswith("ForCausalLM") and type(model).__module__.startswith("transformers.")
    from avatar.llm.forward_pass import ModelForward
    forward = ModelForward(model, fam, force_bidirectional=stock_causal and fam.attention == BIDIRECTIONAL)
    from avatar.model_contract import use_model_folder

    _check_finite(folder, forward, mask_id, eos_ids[0])
    use_model_folder(folder)  # the checks read this model's tables (none: a foreign model, those checks skip)
    return DiffusionLM(model=model, tokenizer=tokenizer, family=fam, forward=forward, path=folder,
                       device=device, mask_token_id=mask_id, eos_token_ids=tuple(eos_ids),
                       pad_token_id=pad_id, vocab_size=vocab_size)


def _load_torch(folder: Path, config: dict, fam: Family, device: str, threads: int | None, dtype: str,
                needs_tokens: Sequence[str], purpose: str) -> tuple[Any, Any]:
    """Any model in torch (the embedded one too, on cuda or in another dtype, and its AR twin)."""
    try:
        import torch
    except ImportError:  # an install for the kiosk alone: the embedded model runs in numpy without it
        raise ModelError(f"{folder} (family '{fam.name}', {device}, dtype {dtype}) needs PyTorch, which is not "
                         "installed", hint="install it (pip install torch==2.13.0; `make install` does), or use "
                                           "the embedded model on the CPU (llm.backend = \"auto\")") from None

    torch_device = _device(device)
    if threads:
        torch.set_num_threads(int(threads))
    torch_dtype = _dtype(dtype, torch_device)
    fast = _load_embedded(folder, config, fam, torch_dtype)
    if fast is not None:  # the embedded model or its twin: plain torch and tokenizers, no transformers import
        model, tokenizer = fast
        _check_needed_tokens(folder, fam, tokenizer, needs_tokens, purpose)
        model = model.to(torch_device).eval()
    else:
        _register_embedded_model()
        tokenizer = _load_tokenizer(folder, fam)
        _check_needed_tokens(folder, fam, tokenizer, needs_tokens, purpose)  # before seconds of weight loading
        model = _load_weights(folder, config, fam, torch_dtype).to(torch_device).eval()
    model.requires_grad_(False)
    return model, tokenizer


def _embedded_folder(folder: Path, config: dict, fam: Family, names: tuple[str, ...]) -> bool:
    """A folder as `avatar train` writes it for one of `names`: config.json of that model type, one
    model.safetensors and a bare tokenizer.json (anything else goes through transformers)."""
    return (fam.name in names and config.get("model_type") == fam.name and "auto_map" not in config
            and sorted(p.name for p in folder.glob("*.safetensors")) == ["model.safetensors"]
            and (folder / "tokenizer.json").is_file() and not (folder / "tokenizer_config.json").exists())


def _settings(config: dict) -> Any:
    from avatar.llm.numpy_mdlm import MDLMSettings

    return MDLMSettings(**{k: v for k, v in config.items() if not k.startswith("_")})


def _load_native(folder: Path, config: dict, fam: Family) -> tuple[Any, Any] | None:
    """The embedded model (avatar-mdlm, float32 weights) in numpy and its bare tokenizer.json:
    importing torch alone costs ~2.4 s on a 2-core box, half of a cold start (numpy_mdlm.py).
    None for any other folder (torch loads it)."""
    if not _embedded_folder(folder, config, fam, ("avatar-mdlm",)):
        return None
    from safetensors import safe_open

    with safe_open(str(folder / "model.safetensors"), framework="numpy") as f:
        if any(f.get_slice(n).get_dtype() != "F32" for n in f.keys()):
            return None  # half precision: numpy has no bfloat16, torch reads it
    from avatar.llm.numpy_mdlm import NumpyMDLM

    try:
        model = NumpyMDLM.load(folder, _settings(config))
        tokenizer = _bare_tokenizer(folder)
    except Exception as exc:  # weights that do not fit config.json, a broken tokenizer.json
        raise _unfit(folder, exc) from None
    return model, tokenizer


def _bare_tokenizer(folder: Path) -> "BareTokenizer":
    from tokenizers import Tokenizer

    return BareTokenizer(Tokenizer.from_file(str(folder / "tokenizer.json")))


def _unfit(folder: Path, exc: Exception) -> ModelError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ModelError(f"cannot load the embedded model in {folder}: {first}",
                      hint="the folder's files do not belong together; copy the model folder again")


_BLAS_LIMIT: Any = None  # threadpoolctl's handle: the limit lasts while it is held


def limit_blas_threads(threads: int) -> None:
    """numpy's BLAS threads for the numpy model (llm.threads; torch.set_num_threads' counterpart)."""
    global _BLAS_LIMIT
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an install without it keeps BLAS's own thread count
        log.debug("threadpoolctl missing: numpy's BLAS keeps its own thread count")
        return
    _BLAS_LIMIT = threadpool_limits(limits=threads, user_api="blas")


def _load_embedded(folder: Path, config: dict, fam: Family, dtype: Any) -> tuple[Any, Any] | None:
    """The embedded model (avatar-mdlm) or its AR twin in plain torch and its bare tokenizer.json:
    importing transformers' PreTrainedModel alone costs ~3 s on a 2-core box. None for any other
    folder (the transformers path loads it)."""
    if not _embedded_folder(folder, config, fam, ("avatar-mdlm", "avatar-ar")):
        return None
    from safetensors.torch import load_file

    from avatar.llm.mdlm_layers import FastAvatarMDLM

    settings = _settings(config)
    try:
        if fam.name == "avatar-ar":  # the AR twin (issue 15): the same settings and parameter names
            from avatar.llm.ar_layers import FastAvatarAR
            model = FastAvatarAR(settings)
        else:
            model = FastAvatarMDLM(settings)
        model.load_state_dict(load_file(str(folder / "model.safetensors")), strict=True)
        tokenizer = _bare_tokenizer(folder)
    except Exception as exc:  # a state dict that does not fit, a broken tokenizer.json
        raise _unfit(folder, exc) from None
    return model.to(dtype), tokenizer


class BareTokenizer:
    """A tokenizer.json (`tokenizers.Tokenizer`) with the few methods of a transformers tokenizer the
    engine uses; a bare tokenizer.json declares no special-token roles, as transformers reads it too."""
    mask_token_id = unk_token_id = eos_token_id = sep_token_id = pad_token_id = bos_token_id = None
    chat_template = None

    def __init__(self, tokenizer: Any):
        self.backend_tokenizer = tokenizer

    def __len__(self) -> int:
        return self.backend_tokenizer.get_vocab_size(with_added_tokens=True)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self.backend_tokenizer.encode(text, add_special_tokens=add_special_tokens).ids

    def decode(self, ids, skip_special_tokens: bool = False) -> str:
        return self.backend_tokenizer.decode([int(i) for i in ids], skip_special_tokens=skip_special_tokens)

    def get_vocab(self) -> dict[str, int]:
        return self.backend_tokenizer.get_vocab(with_added_tokens=True)

    def convert_tokens_to_ids(self, token: str) -> int | None:
        return self.backend_tokenizer.token_to_id(token)

    def convert_ids_to_tokens(self, index: int) -> str | None:
        return self.backend_tokenizer.id_to_token(int(index))


def _check_needed_tokens(folder: Path, fam: Family, tokenizer: Any, needs: Sequence[str], purpose: str) -> None:
    if not needs:
        return
    vocab = tokenizer.get_vocab()
    missing = [t for t in needs if t not in vocab]
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise ModelError(f"{folder} (family '{fam.name}') cannot serve as {purpose or 'this model user'}: its "
                         f"tokenizer lacks {len(missing)} of the {len(needs)} tokens needed for that ({shown})",
                         hint="use the embedded model (models/avatar-mdlm, or one made by `avatar train`); "
                              "other diffusion models can be timed with `avatar bench-llm --model DIR`")


def _register_embedded_model() -> None:
    try:
        import avatar.llm.embedded_model  # noqa: F401  registers avatar-mdlm with transformers' Auto classes
        import avatar.llm.ar_model  # noqa: F401  and its AR twin, avatar-ar
    except ImportError as exc:
        log.debug("embedded model not available: %s", exc)


def _check_weights(folder: Path) -> None:
    shards = sorted(folder.glob("*.safetensors"))
    if not shards and not list(folder.glob("pytorch_model*.bin")):
        raise ModelError(f"{folder} has no weights (*.safetensors)",
                         hint="copy model.safetensors into the folder, or train the model (avatar train)")
    from safetensors import safe_open

    for shard in shards:
        try:
            with safe_open(str(shard), framework="numpy") as f:
                names = list(f.keys())
                expected = sum(_nbytes(f.get_slice(n)) for n in names)
        except Exception as exc:  # safetensors raises several types for a bad header
            raise ModelError(f"{shard} is not a readable safetensors file ({exc})",
                             hint="the file is corrupt or truncated; copy or download it again") from None
        if shard.stat().st_size < expected:
            raise ModelError(f"{shard} is truncated ({shard.stat().st_size} bytes, the tensors need {expected})",
                             hint="the copy is incomplete; copy the file again")


def _check_finite(folder: Path, forward: Any, mask_id: int, eos_id: int) -> None:
    """One forward pass over a few tokens: NaN or infinite logits (damaged or badly trained weights)
    would otherwise decode as arbitrary tokens without a word of warning."""
    import numpy as np

    from avatar.llm.forward_pass import as_numpy

    ids = forward.to_model(np.array([[eos_id, mask_id, mask_id]], dtype=np.int64))
    try:
        with forward.no_grad():
            out = forward.model(input_ids=ids, **({"prompt_len": 1} if forward.takes_prompt_len else {}))
        logits = as_numpy(out.logits)
    except Exception as exc:  # a model that cannot even run a pass is as unusable
        raise ModelError(f"{folder}: the model fails on its first forward pass: {type(exc).__name__}: {exc}",
                         hint="the weights do not fit the model's config.json; copy or train the model again") from None
    bad = int(np.size(logits) - np.isfinite(logits).sum())
    if bad:
        raise ModelError(f"{folder}: the model produces NaN or infinite values ({bad} of {np.size(logits)} logits "
                         "of a test pass)", hint="its weights are damaged or its training diverged: reinstall it "
                                                 "(`avatar models --verify`) or train it again") from None


def _nbytes(tensor_slice: Any) -> int:
    n = 1
    for d in tensor_slice.get_shape():
        n *= d
    sizes = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2, "U16": 2}
    return n * sizes.get(tensor_slice.get_dtype(), 1)


def _device(device: str) -> Any:
    import torch

    if device == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError("llm.device is cuda but torch finds no CUDA device (this torch build: "
                              f"{torch.__version__})", hint="set llm.device = \"cpu\", or install a CUDA build of torch and a GPU driver")
        return torch.device("cuda")
    return torch.device("cpu")


def _dtype(dtype: str, device: Any) -> Any:
    import torch

    if dtype == "auto":
        return torch.bfloat16 if device.type == "cuda" else torch.float32  # bf16 matmuls are slow on most CPUs
    return getattr(torch, dtype)


def _load_weights(folder: Path, config: dict, fam: Family, dtype: Any) -> Any:
    import transformers

    architectures = config.get("architectures") or []
    if any(a.endswith("ForCausalLM") for a in architectures):
        auto = transformers.AutoModelForCausalLM
    elif any(a.endswith("ForMaskedLM") for a in architectures):
        auto = transformers.AutoModelForMaskedLM
    else:
        auto = getattr(transformers, fam.auto_class)
    remote = fam.remote_code and "auto_map" in config  # the modelling code is a file in this local folder
    try:
        return auto.from_pretrained(str(folder), local_files_only=True, dtype=dtype, trust_remote_code=remote)
    except (OSError, ValueError, KeyError, RuntimeError, ImportError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot load the model in {folder} as family '{fam.name}': {first}",
                         hint="check that the folder is complete and the family fits (--set llm.family=...)") from None


def _load_tokenizer(folder: Path, fam: Family) -> Any:
    try:
        from transformers import AutoTokenizer, PreTrainedTokenizerFast
    except ImportError:
        raise ModelError(f"{folder} (family '{fam.name}') is loaded through transformers, which is not installed",
                         hint="pip install -e '.[train]' (make install does)") from None

    try:
        return AutoTokenizer.from_pretrained(str(folder), local_files_only=True,
                                             trust_remote_code=fam.remote_code and (folder / "tokenizer_config.json").exists())
    except Exception as first:  # a bare tokenizer.json without tokenizer_config.json still loads directly
        if (folder / "tokenizer.json").is_file():
            try:
                return PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
            except Exception:
                pass
        raise ModelError(f"cannot load the tokenizer in {folder} ({first})",
                         hint="the tokenizer files are missing or corrupt; copy them again") from None


def _token_id(tokenizer: Any, token: str | None, vocab_size: int) -> int | None:
    if not token:
        return None
    tid = tokenizer.convert_tokens_to_ids(token)
    if tid is None or tid == tokenizer.unk_token_id or not 0 <= tid < vocab_size:
        return None
    return int(tid)


def _mask_id(tokenizer: Any, fam: Family, config: dict, vocab_size: int) -> int | None:
    for tid in (_token_id(tokenizer, fam.mask_token, vocab_size), tokenizer.mask_token_id,
                config.get("mask_token_id"), fam.mask_token_id):
        if tid is not None and 0 <= int(tid) < vocab_size:
            return int(tid)
    return None


def _eos_ids(tokenizer: Any, fam: Family, config: dict, vocab_size: int) -> list[int]:
    ids = [t for t in (_token_id(tokenizer, s, vocab_size) for s in fam.eos_tokens) if t is not None]
    if not ids:
        ids = [t for t in fam.eos_token_ids if t < vocab_size and tokenizer.convert_ids_to_tokens(t) in fam.eos_tokens]
    if not ids:
        for tid in (tokenizer.eos_token_id, tokenizer.sep_token_id, config.get("eos_token_id")):
            if isinstance(tid, int) and 0 <= tid < vocab_size and tid not in ids:
                ids.append(tid)
    return ids
