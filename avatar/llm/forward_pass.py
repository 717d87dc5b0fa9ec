"""Asking a loaded model for the logits of the answer positions, with or without a prompt cache.

The decode loop only ever calls `source.logits(answer, start, end)`: the logits (end-start, V) of
answer positions [start, end) given the current answer (committed tokens and masks). How they
are computed is decided here, once per reply:

- `NoCache`: prompt + answer through the model every step.
- `PromptCache` (exact, prompt-causal models such as the embedded one): the prompt is encoded
  once; each step runs only the answer against the cached prompt.
- `PrefixCache`: the KV cache of prompt + committed blocks. Exact for causal attention (the prefix
  never sees what comes after it); approximate for bidirectional attention, refreshed by one full
  pass at the start of every block, as Fast-dLLM does.
"""
from __future__ import annotations

import contextlib
import inspect
from typing import Any

import numpy as np

from avatar.llm.families import BIDIRECTIONAL, CAUSAL_AR_ADAPTED, PROMPT_CAUSAL, Family


def as_numpy(values: Any) -> np.ndarray:
    """Logits as a float32 numpy array, whether the model runs in numpy or in torch."""
    if isinstance(values, np.ndarray):
        return values
    return values.detach().to("cpu").float().numpy()


class ModelForward:
    """One model's calling convention: which mask to pass, where the cache goes, shifted logits.
    The decode loops hand it numpy ids and get numpy logits back; a torch model gets tensors."""

    def __init__(self, model: Any, family: Family, force_bidirectional: bool):
        self.model = model
        self.family = family
        self.shift = family.logit_shift
        self.native = bool(getattr(model, "numpy_native", False))  # numpy_mdlm.NumpyMDLM: no torch at all
        # a stock *ForCausalLM used by a bidirectional family needs an all-visible mask (Dream-style)
        self.force_bidirectional = force_bidirectional
        params = inspect.signature(model.forward).parameters
        self.cache_arg = "cache" if "cache" in params else "past_key_values" if "past_key_values" in params else None
        self.takes_prompt_len = "prompt_len" in params  # the project's own models: where the reply starts
        self.has_prompt_cache = hasattr(model, "encode_prompt")
        self._device: Any = None  # a torch model's device, read at its first call

    def to_model(self, ids: Any) -> Any:
        """Token ids (numpy) as the model takes them."""
        if self.native:
            return np.asarray(ids, dtype=np.int64)
        import torch

        if self._device is None:
            self._device = next(self.model.parameters()).device
        return torch.as_tensor(np.asarray(ids, dtype=np.int64), device=self._device)

    def no_grad(self) -> Any:
        if self.native:
            return contextlib.nullcontext()
        import torch

        return torch.no_grad()
    @property
    def cache_kind(self) -> str:
        """exact | approximate | none: the best prompt cache this model allows."""
        if self.has_prompt_cache and self.family.attention == PROMPT_CAUSAL:
            return "exact"
        if self.cache_arg is None or not self.family.kv_cache:
            return "none"
        return "approximate" if self.family.attention == BIDIRECTIONAL else "exact"

    def start(self, prompt: np.ndarray, use_cache: bool) -> "LogitsSource":
        kind = self.cache_kind if use_cache else "none"
        if kind == "none":
            return NoCache(self, prompt)
        if self.has_prompt_cache and self.family.attention == PROMPT_CAUSAL:
            return PromptCache(self, prompt)
        return PrefixCache(self, prompt, exact=self.family.attention in (CAUSAL_AR_ADAPTED, PROMPT_CAUSAL))

    def call(self, ids: np.ndarray, *, cache: Any = None, past_len: int = 0, use_cache: bool = False,
             prompt_len: int | None = None) -> Any:
        kwargs: dict[str, Any] = {}
        ids = self.to_model(ids)
        if self.force_bidirectional:
            import torch

            kwargs["attention_mask"] = torch.ones(1, 1, ids.shape[1], past_len + ids.shape[1],
                                                  dtype=torch.bool, device=ids.device)
        if prompt_len is not None and self.family.attention == PROMPT_CAUSAL:
            kwargs["prompt_len"] = prompt_len
        if cache is not None or use_cache:
            kwargs[self.cache_arg] = cache
            kwargs["use_cache"] = True
        with self.no_grad():
            return self.model(input_ids=ids, **kwargs)


class LogitsSource:
    cache = "none"
    prompt_passes = 0  # forward passes spent encoding the prompt alone

    def begin_block(self, answer: np.ndarray, start: int) -> None:
        """Called when the block starting at answer position `start` begins."""

    def logits(self, answer: np.ndarray, start: int, end: int) -> np.ndarray:
        """(end - start, V) float32 logits of answer positions [start, end)."""
        raise NotImplementedError


class NoCache(LogitsSource):
    def __init__(self, fwd: ModelForward, prompt: np.ndarray):
        self.fwd, self.prompt = fwd, prompt

    def logits(self, answer: np.ndarray, start: int, end: int) -> np.ndarray:
        p = self.prompt.shape[1]
        raw = self.fwd.call(np.concatenate([self.prompt, answer], axis=1), prompt_len=p).logits[0]
        if self.fwd.shift:  # position i is predicted at i-1
            return as_numpy(raw[p + start - 1:p + end - 1])
        return as_numpy(raw[p + start:p + end])


class PromptCache(LogitsSource):
    """Exact: the model's prompt never attends to the answer, so its encoding is reused as is."""
    cache = "exact"
    prompt_passes = 1

    def __init__(self, fwd: ModelForward, prompt: np.ndarray):
        self.fwd = fwd
        with fwd.no_grad():
            self.state = fwd.model.encode_prompt(fwd.to_model(prompt))

    def logits(self, answer: np.ndarray, start: int, end: int) -> np.ndarray:
        with self.fwd.no_grad():
            raw = self.fwd.model(input_ids=self.fwd.to_model(answer), prompt_cache=self.state).logits[0]
        return as_numpy(raw[start:end])


class PrefixCache(LogitsSource):
    """KV cache of prompt + committed blocks; each step runs only the current block (and, for
    bidirectional attention, the masked tail after it, which the block must see)."""

    def __init__(self, fwd: ModelForward, prompt: np.ndarray, exact: bool):
        self.fwd, self.prompt, self.exact = fwd, prompt, exact
        self.cache = "exact" if exact else "approximate"
        self.p = prompt.shape[1]
        self.kv: Any = None
        self.kv_len = 0        # answer positions whose keys/values are in self.kv
        self.edge: np.ndarray | None = None  # logits at the last cached position (shifted models)
        self.fresh: np.ndarray | None = None  # block-start logits, reused by the block's first step
        if exact:
            out = fwd.call(prompt, use_cache=True)
            self.kv, self.edge = out_cache(out), as_numpy(out.logits[0, -1])
            self.prompt_passes = 1

    def begin_block(self, answer: np.ndarray, start: int) -> None:
        if self.exact:
            return
        # approximate: one full pass refreshes the prefix's keys/values and serves as the first step
        out = self.fwd.call(np.concatenate([self.prompt, answer], axis=1), use_cache=True)
        raw = as_numpy(out.logits[0])
        self.kv = out_cache(out)
        self._crop(self.p + start)
        self.kv_len = start
        self.edge = raw[self.p + start - 1]
        self.fresh = raw[self.p:] if not self.fwd.shift else raw[self.p - 1:-1]

    def logits(self, answer: np.ndarray, start: int, end: int) -> np.ndarray:
        if self.fresh is not None:
            fresh, self.fresh = self.fresh, None
            return fresh[start:end]
        tail_end = end if self.exact else answer.shape[1]
        tail = answer[:, self.kv_len:tail_end]
        raw = as_numpy(self.fwd.call(tail, cache=self.kv, past_len=self.p + self.kv_len).logits[0])
        if self.fwd.shift:
            raw = np.concatenate([self.edge[None], raw[:-1]], axis=0)
        out = raw[start - self.kv_len:end - self.kv_len]
        if self.exact and start > self.kv_len:
            # the committed positions before `start` are final: keep their keys/values (exact for causal)
            if self.fwd.shift:
                self.edge = raw[start - self.kv_len]  # = model output at position start-1
            self.kv_len = start
        self._crop(self.p + self.kv_len)
        return out

    def _crop(self, length: int) -> None:
        extra = self.kv.get_seq_length() - length
        if extra > 0:
            self.kv.crop(-extra)  # negative: remove that many (accepted by old and new transformers)


def out_cache(out: Any) -> Any:
    cache = getattr(out, "cache", None)
    return cache if cache is not None else out.past_key_values
