"""The autoregressive twin of the embedded model (issue 15), in plain torch.

The same layers as the diffusion model (mdlm_layers.py: embedding, segment embedding, pre-norm
blocks, the copy head over the prompt, the same parameter names and count); only attention
differs: causal over prompt + reply. The reply is read one token behind (`<bos>` first), so the
output at reply position i predicts reply token i. Decoding keeps a KV cache: the prompt is
encoded once, then each forward pass runs only the new tokens against the cached keys/values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from avatar.llm.mdlm_layers import FastAvatarMDLM, MDLMLayers, PromptCache


@dataclass
class ReplyCache:
    """The prompt cache plus the keys/values of the reply tokens fed so far (one row)."""
    prompt: PromptCache
    keys: list[torch.Tensor]      # per layer (B, H, A, Dh)
    values: list[torch.Tensor]
    length: int = 0               # reply tokens fed so far


class ARLayers(MDLMLayers):
    """MDLMLayers with causal attention: prompt tokens see earlier prompt tokens, reply tokens see
    the whole prompt and earlier reply tokens."""

    def _prompt_mask(self, key_valid: torch.Tensor) -> torch.Tensor:
        """Each prompt position attends to the valid ones up to itself (B, 1, P, P); position 0
        (<bos>) is always valid."""
        p = key_valid.shape[1]
        causal = torch.ones(p, p, dtype=torch.bool, device=key_valid.device).tril()
        return key_valid[:, None, None, :] & causal

    def start_reply(self, cache: PromptCache) -> ReplyCache:
        return ReplyCache(cache, [None] * len(self.blocks), [None] * len(self.blocks))

    def _reply_logits(self, ids: torch.Tensor, cache: PromptCache, past: ReplyCache | None = None) -> torch.Tensor:
        """Log-probabilities (B, A, V) for reply inputs `ids`, which follow the `past` reply tokens
        (None: they are the reply from its start); `past` is extended with their keys/values."""
        b, a = ids.shape
        start = past.length if past is not None else 0
        pos = cache.lengths[:, None] + start + torch.arange(a, device=ids.device)
        x = self.embed(ids) + self.segment.weight[1]
        causal = torch.ones(a, start + a, dtype=torch.bool, device=ids.device).tril(start)
        mask = torch.cat([cache.key_valid[:, None, :].expand(b, a, -1), causal.expand(b, a, -1)], dim=2)[:, None]
        rot = self._angles(pos, x.dtype)
        for i, (blk, pk, pv) in enumerate(zip(self.blocks, cache.keys, cache.values)):
            q, k, v = blk.qkv_heads(x, rot)
            if past is not None:
                if past.keys[i] is not None:
                    k, v = torch.cat([past.keys[i], k], 2), torch.cat([past.values[i], v], 2)
                past.keys[i], past.values[i] = k, v
            att = F.scaled_dot_product_attention(q, torch.cat([pk, k], 2), torch.cat([pv, v], 2), attn_mask=mask)
            x = blk.finish(x, att)
        if past is not None:
            past.length += a
        return self._head(self.ln_f(x), cache)

    def shifted(self, reply: torch.Tensor) -> torch.Tensor:
        """The reply as the model reads it: `<bos>`, then every token but the last."""
        start = torch.full_like(reply[:, :1], self.config.bos_token_id)
        return torch.cat([start, reply[:, :-1]], dim=1)

    def forward(self, input_ids: torch.Tensor, prompt_len: int | None = None,
                prompt_cache: PromptCache | None = None, labels: torch.Tensor | None = None,
                **kwargs) -> Any:
        """Reply tokens (the reply itself, not shifted) with `prompt_cache`, or prompt + reply with
        `prompt_len`: log-probabilities of each reply token given the prompt and the reply before it,
        at that token's position (so the layout matches the diffusion model's answer logits)."""
        if prompt_cache is None:
            if prompt_len is None:
                raise ValueError("AvatarAR needs prompt_len (or prompt_cache): where the reply starts")
            prompt_cache = self.encode_prompt(input_ids[:, :prompt_len])
            input_ids = input_ids[:, prompt_len:]
        logits = self._reply_logits(self.shifted(input_ids), prompt_cache)
        loss = None
        if labels is not None:
            lab = labels[:, -logits.shape[1]:]
            loss = F.nll_loss(logits.reshape(-1, logits.shape[-1]), lab.reshape(-1), ignore_index=-100)
        return self._output(logits=logits, loss=loss)


def ar_loss(model: ARLayers, prompt: torch.Tensor, reply: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy on the reply given the prompt, up to and including its first `<eos>`
    (the diffusion model also learns the `<eos>` filler after it; a left-to-right decoder stops there)."""
    eos = model.config.eos_token_id
    is_eos = reply == eos
    first = torch.where(is_eos.any(1), is_eos.int().argmax(1), reply.shape[1] - 1)
    reply = reply[:, :int(first.max()) + 1]  # the rest is <eos> filler in every row: no need to run it
    logp = model._reply_logits(model.shifted(reply), model.encode_prompt(prompt))
    nll = -logp.gather(-1, reply[..., None]).squeeze(-1)
    counted = torch.arange(reply.shape[1], device=reply.device)[None, :] <= first[:, None]
    return (nll * counted).sum() / counted.sum()


class FastAvatarAR(ARLayers, FastAvatarMDLM):
    """The AR twin without transformers, for inference (the loader builds it from config.json): the
    embedded model's plain-torch module with the twin's causal maths in front of it."""

