"""The embedded model's inference in numpy: what the kiosk runs, without importing torch.

Importing torch costs ~2.4 s on the 2-core box, half of `avatar ask`'s wall time and the largest
piece of the kiosk's cold start, and the model it serves is small (128 wide, 4 layers): numpy's
BLAS runs its forward pass as fast as torch does. So the shipped model (family avatar-mdlm, CPU,
float32) is loaded here from the same config.json and model.safetensors, with the same parameter
names, and computes what avatar/llm/mdlm_layers.py computes (tests/test_llm_numpy.py holds the two
equal to float rounding). Training, other dtypes and devices, and every other family keep torch.

The interface is the part of mdlm_layers.MDLMLayers the decode loop calls: `encode_prompt(ids)`
once per reply, then `model(input_ids=answer, prompt_cache=cache).logits` per step. One prompt at
a time (batch 1): the kiosk answers one visitor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# AvatarMDLMConfig's defaults (embedded_model.py; tests/test_llm_embedded_model.py keeps them equal)
DEFAULTS = {"vocab_size": 4096, "hidden_size": 256, "num_hidden_layers": 5, "num_attention_heads": 4,
            "intermediate_size": 768, "max_answer_len": 48, "max_prompt_len": 192, "rope_theta": 10000.0,
            "copy_head": True, "layer_norm_eps": 1e-5, "mask_token_id": 4, "pad_token_id": 0, "bos_token_id": 2,
            "eos_token_id": 3, "sep_token_id": 5}


class MDLMSettings:
    """config.json of a shipped model as attributes (what AvatarMDLMConfig holds, without transformers)."""

    def __init__(self, **values: Any):
        self.__dict__.update({**DEFAULTS, **values})


@dataclass
class NumpyPromptCache:
    """The encoded prompt (exact: the prompt never attends to the answer)."""
    keys: list[np.ndarray]     # per layer (H, P, Dh), rotary applied
    values: list[np.ndarray]   # per layer (H, P, Dh)
    copy_keys: np.ndarray      # (P, D): copy_k of the final normalised prompt states
    key_valid: np.ndarray      # (P,) bool, False at padding
    length: int                # real prompt length (answer positions start here)
    copy_ids: np.ndarray       # (U,) the distinct prompt token ids
    copy_onehot: np.ndarray    # (P, U) float32: prompt position -> its distinct id


@dataclass
class NumpyOutput:
    logits: np.ndarray         # (1, T, V) log-probabilities


class NumpyMDLM:
    """The shipped embedded model in numpy (inference only, batch 1)."""
    numpy_native = True

    def __init__(self, config: MDLMSettings, weights: dict[str, np.ndarray]):
        self.config = config
        self._check(config, weights)
        self.w = {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()}
        d, h = config.hidden_size, config.num_attention_heads
        self.heads, self.dh = h, d // h
        self.eps = float(config.layer_norm_eps)
        self.inv_freq = (1.0 / (float(config.rope_theta) ** (np.arange(0, self.dh, 2, dtype=np.float32) / self.dh))
                         ).astype(np.float32)
        # transposed once: x @ W.T for every linear layer
        self.t = {k: np.ascontiguousarray(v.T) for k, v in self.w.items()
                  if v.ndim == 2 and not k.startswith(("embed.", "segment."))}
        self.embed_t = np.ascontiguousarray(self.w["embed.weight"].T)

    @staticmethod
    def _check(c: MDLMSettings, weights: dict[str, np.ndarray]) -> None:
        """Every parameter of the architecture, of its shape, and nothing else (torch's strict load)."""
        d, i, v = c.hidden_size, c.intermediate_size, c.vocab_size
        shapes = {"embed.weight": (v, d), "segment.weight": (2, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
        for n in range(c.num_hidden_layers):
            shapes.update({f"blocks.{n}.ln1.weight": (d,), f"blocks.{n}.ln1.bias": (d,),
                           f"blocks.{n}.qkv.weight": (3 * d, d), f"blocks.{n}.proj.weight": (d, d),
                           f"blocks.{n}.ln2.weight": (d,), f"blocks.{n}.ln2.bias": (d,),
                           f"blocks.{n}.up.weight": (2 * i, d), f"blocks.{n}.down.weight": (d, i)})
        if c.copy_head:
            shapes.update({"copy_q.weight": (d, d), "copy_k.weight": (d, d), "copy_gate.weight": (1, d),
                           "copy_gate.bias": (1,)})
        missing = sorted(set(shapes) - set(weights))
        unexpected = sorted(set(weights) - set(shapes))
        wrong = [f"{k} {tuple(weights[k].shape)} (config: {shapes[k]})" for k in sorted(set(shapes) & set(weights))
                 if tuple(weights[k].shape) != shapes[k]]
        if missing or unexpected or wrong:
            parts = ([f"missing {', '.join(missing[:3])}"] if missing else []) + \
                    ([f"unexpected {', '.join(unexpected[:3])}"] if unexpected else []) + \
                    ([f"wrong shape {', '.join(wrong[:3])}"] if wrong else [])
            raise ValueError("the weights do not fit config.json: " + "; ".join(parts))
        if d % c.num_attention_heads:
            raise ValueError(f"hidden_size {d} is not a multiple of num_attention_heads {c.num_attention_heads}")

    @classmethod
    def load(cls, folder: Path, config: MDLMSettings) -> "NumpyMDLM":
        from safetensors.numpy import load_file

        return cls(config, load_file(str(folder / "model.safetensors")))

    # --- what the loader and the benches ask of a model ---------------------------------------
    def num_parameters(self) -> int:
        return int(sum(v.size for v in self.w.values()))

    @property
    def dtype(self) -> str:
        return "float32"

    # --- the maths (mdlm_layers.MDLMLayers, one row) --------------------------------------------
    def _ln(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(-1, keepdims=True)
        return centred / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _rotation(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ang = positions.astype(np.float32)[:, None] * self.inv_freq
        return np.cos(ang), np.sin(ang)

    @staticmethod
    def _rotate(x: np.ndarray, rot: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        cos, sin = rot
        x1, x2 = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = x1 * cos - x2 * sin
        out[..., 1::2] = x1 * sin + x2 * cos
        return out

    def _qkv(self, i: int, x: np.ndarray, rot) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = x.shape[0]
        y = self._ln(x, f"blocks.{i}.ln1") @ self.t[f"blocks.{i}.qkv.weight"]
        q, k, v = y.reshape(t, 3, self.heads, self.dh).transpose(1, 2, 0, 3)
        return self._rotate(q, rot), self._rotate(k, rot), v

    def _attend(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, valid: np.ndarray) -> np.ndarray:
        scores = q @ k.transpose(0, 2, 1) * np.float32(1.0 / math.sqrt(self.dh))
        if not valid.all():
            scores = np.where(valid, scores, np.float32(-np.inf))
        return _softmax(scores) @ v

    def _finish(self, i: int, x: np.ndarray, att: np.ndarray) -> np.ndarray:
        t = x.shape[0]
        x = x + att.transpose(1, 0, 2).reshape(t, -1) @ self.t[f"blocks.{i}.proj.weight"]
        gate, val = np.split(self._ln(x, f"blocks.{i}.ln2") @ self.t[f"blocks.{i}.up.weight"], 2, axis=-1)
        silu = gate / (np.float32(1.0) + np.exp(-gate))
        return x + (silu * val) @ self.t[f"blocks.{i}.down.weight"]

    # --- prompt and answer ----------------------------------------------------------------------
    def encode_prompt(self, prompt_ids: Any) -> NumpyPromptCache:
        ids = _one_row(prompt_ids)
        valid = ids != self.config.pad_token_id
        x = self.w["embed.weight"][ids] + self.w["segment.weight"][0]
        rot = self._rotation(np.arange(len(ids)))
        keys, values = [], []
        for i in range(self.config.num_hidden_layers):
            q, k, v = self._qkv(i, x, rot)
            keys.append(k)
            values.append(v)
            x = self._finish(i, x, self._attend(q, k, v, valid))
        hidden = self._ln(x, "ln_f")
        copy_keys = hidden @ self.t["copy_k.weight"] if self.config.copy_head else hidden
        distinct, where = np.unique(ids, return_inverse=True)
        onehot = np.zeros((len(ids), len(distinct)), dtype=np.float32)
        onehot[np.arange(len(ids)), where.reshape(-1)] = 1.0
        return NumpyPromptCache(keys, values, copy_keys, valid, int(valid.sum()), distinct, onehot)

    def answer_logits(self, answer_ids: Any, cache: NumpyPromptCache) -> np.ndarray:
        """Log-probabilities (A, V) of every answer position given the encoded prompt."""
        ids = _one_row(answer_ids)
        a = len(ids)
        x = self.w["embed.weight"][ids] + self.w["segment.weight"][1]
        rot = self._rotation(cache.length + np.arange(a))
        valid = np.concatenate([cache.key_valid, np.ones(a, dtype=bool)])
        for i, (pk, pv) in enumerate(zip(cache.keys, cache.values)):
            q, k, v = self._qkv(i, x, rot)
            x = self._finish(i, x, self._attend(q, np.concatenate([pk, k], 1), np.concatenate([pv, v], 1), valid))
        return self._head(self._ln(x, "ln_f"), cache)

    def _head(self, h: np.ndarray, cache: NumpyPromptCache) -> np.ndarray:
        vocab = h @ self.embed_t
        if not self.config.copy_head:
            return _log_softmax(vocab)
        scores = (h @ self.t["copy_q.weight"]) @ cache.copy_keys.T * np.float32(1.0 / math.sqrt(h.shape[-1]))
        if not cache.key_valid.all():
            scores = np.where(cache.key_valid, scores, np.float32(-np.inf))
        gate = 1.0 / (1.0 + np.exp(-(h @ self.t["copy_gate.weight"] + self.w["copy_gate.bias"])))
        # p = (1 - g) * softmax(vocab) + g * copy, the copy mass summed onto each prompt token's id
        p = _softmax(vocab) * (np.float32(1.0) - gate + np.float32(1e-6))
        p[:, cache.copy_ids] += (_softmax(scores) * gate) @ cache.copy_onehot
        return np.log(p + np.float32(1e-12))

    def __call__(self, input_ids: Any, prompt_cache: NumpyPromptCache | None = None,
                 prompt_len: int | None = None, **_: Any) -> NumpyOutput:
        """Answer positions against `prompt_cache`, or prompt + answer (`prompt_len` = P; the answer's
        logits only, at positions P.., the prompt's as zeros: the decode loop reads the answer's)."""
        if prompt_cache is not None:
            return NumpyOutput(self.answer_logits(input_ids, prompt_cache)[None])
        if prompt_len is None:
            raise ValueError("NumpyMDLM needs prompt_len (or prompt_cache): where the answer starts")
        ids = _one_row(input_ids)
        ans = self.answer_logits(ids[prompt_len:], self.encode_prompt(ids[:prompt_len]))
        return NumpyOutput(np.concatenate([np.zeros((prompt_len, ans.shape[1]), np.float32), ans])[None])

    forward = __call__


def _one_row(ids: Any) -> np.ndarray:
    arr = np.asarray(ids, dtype=np.int64)
    if arr.ndim == 2:
        if arr.shape[0] != 1:
            raise ValueError(f"the numpy model runs one prompt at a time, got a batch of {arr.shape[0]}")
        arr = arr[0]
    return arr


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _log_softmax(z: np.ndarray) -> np.ndarray:
    shifted = z - z.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
