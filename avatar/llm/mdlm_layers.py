"""The embedded model's layers in plain torch (no transformers): what the loader builds for the
torch backend (`llm.backend = "torch"`, cuda, half precision) without the ~3 s that importing
transformers' PreTrainedModel costs on a 2-core box; the kiosk's default runs the same maths in
numpy (numpy_mdlm.py). avatar/llm/embedded_model.py puts the same layers (the same parameter names)
behind transformers' PreTrainedModel for training and `from_pretrained`. See that module for the
architecture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from avatar.llm.numpy_mdlm import DEFAULTS, MDLMSettings  # noqa: F401  (the settings live where torch is not needed)


@dataclass
class PromptCache:
    """Everything the answer positions need from an encoded prompt (exact: the prompt ignores the answer)."""
    keys: list[torch.Tensor]      # per layer (B, H, P, Dh), rotary already applied
    values: list[torch.Tensor]    # per layer (B, H, P, Dh)
    hidden: torch.Tensor          # (B, P, D) final normalised prompt states (copy-head keys)
    prompt_ids: torch.Tensor      # (B, P)
    key_valid: torch.Tensor       # (B, P) bool, False at padding
    lengths: torch.Tensor         # (B,) real prompt lengths (answer positions start here)

    def repeat(self, n: int) -> "PromptCache":
        """The same prompts n times each (several masked answers per prompt in training)."""
        r = lambda t: t.repeat_interleave(n, dim=0)
        return PromptCache([r(k) for k in self.keys], [r(v) for v in self.values], r(self.hidden),
                           r(self.prompt_ids), r(self.key_valid), r(self.lengths))


def _rotary_angles(pos: torch.Tensor, dh: int, theta: float, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin (B, 1, T, Dh/2) for per-row positions pos (B, T); computed once per call, shared by the layers."""
    inv = 1.0 / (theta ** (torch.arange(0, dh, 2, device=pos.device, dtype=torch.float32) / dh))
    ang = pos.to(torch.float32)[:, None, :, None] * inv
    return ang.cos().to(dtype), ang.sin().to(dtype)


def _rotary(x: torch.Tensor, rot: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    """Rotate (B, H, T, Dh) by the angles of `_rotary_angles`."""
    cos, sin = rot
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1).flatten(-2)


class Block(nn.Module):
    def __init__(self, cfg: Any):
        super().__init__()
        d, self.h = cfg.hidden_size, cfg.num_attention_heads
        self.theta = cfg.rope_theta
        self.ln1 = nn.LayerNorm(d, eps=cfg.layer_norm_eps)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d, eps=cfg.layer_norm_eps)
        self.up = nn.Linear(d, 2 * cfg.intermediate_size, bias=False)  # SwiGLU
        self.down = nn.Linear(cfg.intermediate_size, d, bias=False)

    def qkv_heads(self, x: torch.Tensor, rot: tuple[torch.Tensor, torch.Tensor]):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        return _rotary(q, rot), _rotary(k, rot), v

    def finish(self, x: torch.Tensor, att: torch.Tensor) -> torch.Tensor:
        b, _, t, _ = att.shape
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, -1))
        gate, val = self.up(self.ln2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * val)


class MDLMLayers:
    """The layers and the maths of the model, mixed into an nn.Module (FastAvatarMDLM here, or
    transformers' PreTrainedModel in embedded_model.AvatarMDLM); `self.config` holds the settings."""

    def _build(self, config: Any) -> None:
        d = config.hidden_size
        self.embed = nn.Embedding(config.vocab_size, d)
        self.segment = nn.Embedding(2, d)  # 0 = prompt, 1 = answer
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.num_hidden_layers))
        self.ln_f = nn.LayerNorm(d, eps=config.layer_norm_eps)
        if config.copy_head:
            self.copy_q = nn.Linear(d, d, bias=False)
            self.copy_k = nn.Linear(d, d, bias=False)
            self.copy_gate = nn.Linear(d, 1)

    def _init_weights(self, module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)

    def get_input_embeddings(self) -> nn.Module:
        return self.embed

    def _angles(self, pos: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        c = self.config
        return _rotary_angles(pos, c.hidden_size // c.num_attention_heads, c.rope_theta, dtype)

    # --- prompt --------------------------------------------------------------------------------
    def encode_prompt(self, prompt_ids: torch.Tensor) -> PromptCache:
        """Run the prompt once; `forward(answer_ids, prompt_cache=...)` then reuses it exactly."""
        key_valid = prompt_ids != self.config.pad_token_id
        pos = torch.arange(prompt_ids.shape[1], device=prompt_ids.device).expand_as(prompt_ids)
        x = self.embed(prompt_ids) + self.segment.weight[0]
        mask = self._prompt_mask(key_valid)
        rot = self._angles(pos, x.dtype)
        keys, values = [], []
        for blk in self.blocks:
            q, k, v = blk.qkv_heads(x, rot)
            keys.append(k)
            values.append(v)
            x = blk.finish(x, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
        return PromptCache(keys, values, self.ln_f(x), prompt_ids, key_valid, key_valid.sum(1))

    def _prompt_mask(self, key_valid: torch.Tensor) -> torch.Tensor:
        """Which prompt positions each prompt position attends to: every valid one (B, 1, 1, P)."""
        return key_valid[:, None, None, :]

    # --- answer --------------------------------------------------------------------------------
    def _answer_logits(self, answer_ids: torch.Tensor, cache: PromptCache) -> torch.Tensor:
        b, a = answer_ids.shape
        pos = cache.lengths[:, None] + torch.arange(a, device=answer_ids.device)
        x = self.embed(answer_ids) + self.segment.weight[1]
        mask = torch.cat([cache.key_valid, cache.key_valid.new_ones(b, a)], dim=1)[:, None, None, :]
        rot = self._angles(pos, x.dtype)
        for blk, pk, pv in zip(self.blocks, cache.keys, cache.values):
            q, k, v = blk.qkv_heads(x, rot)
            att = F.scaled_dot_product_attention(q, torch.cat([pk, k], 2), torch.cat([pv, v], 2), attn_mask=mask)
            x = blk.finish(x, att)
        return self._head(self.ln_f(x), cache)

    def _head(self, h: torch.Tensor, cache: PromptCache) -> torch.Tensor:
        """The vocabulary distribution mixed with the copy head's pointer over the prompt tokens."""
        b, a, _ = h.shape
        vocab_logits = F.linear(h, self.embed.weight).float()
        if not self.config.copy_head:
            return F.log_softmax(vocab_logits, dim=-1)
        # pointer over prompt tokens, scattered onto their vocabulary ids
        scores = self.copy_q(h) @ self.copy_k(cache.hidden).transpose(1, 2) / math.sqrt(h.shape[-1])
        scores = scores.float().masked_fill(~cache.key_valid[:, None, :], float("-inf"))
        g = torch.sigmoid(self.copy_gate(h).float())
        # p = (1 - g) * softmax(vocab) + g * copy: one pass over the vocabulary, then the log
        p = vocab_logits.softmax(-1) * (1.0 - g + 1e-6)
        p.scatter_add_(2, cache.prompt_ids[:, None, :].expand(b, a, -1), scores.softmax(-1) * g)
        return torch.log(p + 1e-12)

    def forward(self, input_ids: torch.Tensor, prompt_len: int | None = None,
                prompt_cache: PromptCache | None = None, labels: torch.Tensor | None = None,
                **kwargs) -> Any:
        """Either the whole sequence (prompt + answer, `prompt_len` = P; logits for all positions)
        or answer tokens only with `prompt_cache` (logits for the answer positions only).
        `labels` (answer positions, -100 = ignore) gives the plain cross-entropy as `loss`."""
        if prompt_cache is not None:
            logits = self._answer_logits(input_ids, prompt_cache)
        else:
            if prompt_len is None:
                raise ValueError("AvatarMDLM needs prompt_len (or prompt_cache): where the answer starts")
            cache = self.encode_prompt(input_ids[:, :prompt_len])
            ans = self._answer_logits(input_ids[:, prompt_len:], cache)
            prompt_logits = F.log_softmax(F.linear(cache.hidden, self.embed.weight).float(), dim=-1)
            logits = torch.cat([prompt_logits, ans], dim=1)
        loss = None
        if labels is not None:
            lab = labels[:, -logits.shape[1]:] if prompt_cache is not None else labels
            loss = F.nll_loss(logits.reshape(-1, logits.shape[-1]), lab.reshape(-1), ignore_index=-100)
        return self._output(logits=logits, loss=loss)


@dataclass
class MDLMOutput:
    logits: torch.Tensor | None = None
    loss: torch.Tensor | None = None


class FastAvatarMDLM(MDLMLayers, nn.Module):
    """The embedded model without transformers, for inference (avatar/llm/loader.py builds it from
    config.json and model.safetensors: the parameter names of AvatarMDLM)."""
    _output = MDLMOutput

    def __init__(self, config: Any):
        nn.Module.__init__(self)
        self.config = config
        self._build(config)

    @property
    def dtype(self) -> torch.dtype:
        return self.embed.weight.dtype

    @property
    def device(self) -> torch.device:
        return self.embed.weight.device
