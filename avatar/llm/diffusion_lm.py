"""A loaded masked-diffusion model with its tokenizer and family: the engine's public face."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.errors import ConfigError
from avatar.llm import engine
from avatar.llm.engine import Block, DecodeOptions, DecodeResult, StepObserver
from avatar.llm.families import AUTOREGRESSIVE, Family
from avatar.llm.forward_pass import ModelForward
from avatar.llm.infill import InfillResult, SkeletonItem, lay_out
from avatar.stage_names import DECODE
from avatar.trace import Tracer, now


@dataclass
class DiffusionLM:
    model: Any
    tokenizer: Any
    family: Family
    forward: ModelForward
    path: Path
    device: str                  # cpu | cuda (a numpy model: cpu)
    mask_token_id: int
    eos_token_ids: tuple[int, ...]
    pad_token_id: int | None
    vocab_size: int

    @property
    def backend(self) -> str:
        """numpy (the embedded model on the CPU, numpy_mdlm.py) or torch."""
        return "numpy" if self.forward.native else "torch"

    # --- text ------------------------------------------------------------------------------------
    def decode_text(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)

    def chat_prompt(self, user: str, system: str | None = None) -> list[int]:
        """Prompt ids for one user message: the tokenizer's chat template, else the family's."""
        system = self.family.default_system if system is None else system
        if getattr(self.tokenizer, "chat_template", None):
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            return list(ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids)
        template = self.family.chat_template or "{system}\n{user}\n"
        return list(self.tokenizer.encode(template.format(system=system, user=user), add_special_tokens=False))

    def default_options(self, **overrides: Any) -> DecodeOptions:
        return replace(DecodeOptions(**self.family.defaults), **overrides)

    # --- decoding --------------------------------------------------------------------------------
    @property
    def _decode(self):
        """The family's decode loop: masked diffusion, or left to right for the AR twin (same contract)."""
        if self.family.decoder == AUTOREGRESSIVE:
            from avatar.llm import ar_engine
            return ar_engine.decode
        return engine.decode

    def stream(self, prompt_ids: Sequence[int] | np.ndarray, options: DecodeOptions | None = None,
               cancel: CancelToken = NEVER, on_step: StepObserver | None = None) -> Iterator[Block]:
        """Committed blocks as soon as each is final (feed them to TTS)."""
        options = options or self.default_options()
        self._check_lengths(prompt_ids, options.gen_length)
        yield from self._decode(self, prompt_ids, options, cancel=cancel, on_step=on_step)

    def generate(self, prompt_ids: Sequence[int] | np.ndarray, options: DecodeOptions | None = None,
                 cancel: CancelToken = NEVER, on_step: StepObserver | None = None,
                 tracer: Tracer | None = None, turn: int | None = None) -> DecodeResult:
        options = options or self.default_options()
        t0 = now()
        self._check_lengths(prompt_ids, options.gen_length)
        blocks, summary = _drain(self._decode(self, prompt_ids, options, cancel=cancel, on_step=on_step))
        ids = [t for b in blocks for t in b.token_ids]
        result = DecodeResult(text="".join(b.text for b in blocks), token_ids=ids, steps=summary.steps,
                              tokens=len(ids), ms=(now() - t0) * 1000.0,
                              first_block_ms=blocks[0].t_ms if blocks else None, blocks=blocks,
                              cache=summary.cache, prompt_passes=summary.prompt_passes, stopped=summary.stopped,
                              answer_ids=summary.answer.tolist(), confidence=summary.confidence)
        if tracer is not None:
            tracer.record(DECODE, t0, turn=turn, track="llm", **result.to_json())
        return result

    def infill(self, prompt_ids: Sequence[int] | np.ndarray, skeleton: Sequence[SkeletonItem],
               options: DecodeOptions | None = None, cancel: CancelToken = NEVER,
               on_step: StepObserver | None = None) -> InfillResult:
        """Fill the skeleton's slots; its fixed tokens are never changed."""
        layout = lay_out(skeleton, self.mask_token_id)
        n = len(layout.answer)
        self._check_lengths(prompt_ids, n)
        options = replace(options or self.default_options(block_length=n), gen_length=n)
        fillers = [t for t in (*self.eos_token_ids, self.pad_token_id) if t is not None]
        t0 = now()
        blocks, summary = _drain(self._decode(self, prompt_ids, options, answer=layout.answer,
                                               groups=layout.slot_ranges, stop_ids=fillers,
                                               cancel=cancel, on_step=on_step))
        answer = summary.answer.tolist()
        filler_set = set(fillers)
        slots = []
        for s, e in layout.slot_ranges:
            content = answer[s:e]
            cut = next((i for i, t in enumerate(content) if t in filler_set), len(content))
            slots.append(content[:cut])
        ids = [t for b in blocks for t in b.token_ids]
        return InfillResult(token_ids=ids, text=self.decode_text(ids), slots=slots,
                            slot_texts=[self.decode_text(s) for s in slots], steps=summary.steps,
                            ms=(now() - t0) * 1000.0, answer_ids=answer, names=layout.slot_names,
                            slot_ranges=[(s, s + len(c)) for (s, _), c in zip(layout.slot_ranges, slots)],
                            confidence=summary.confidence)

    def _check_lengths(self, prompt_ids: Sequence[int] | np.ndarray, answer_len: int) -> None:
        p = int(np.asarray(prompt_ids).size)
        if p == 0:  # shifted-logit models predict the first answer token from the last prompt position
            raise ConfigError("the prompt is empty", hint="build it with DiffusionLM.chat_prompt(question)")
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and p + answer_len > limit:
            raise ConfigError(f"prompt ({p} tokens) + answer ({answer_len}) exceed the model's {limit} positions",
                              hint="retrieve fewer facts, shorten the history or lower llm.gen_length")

def _drain(gen) -> tuple[list[Block], engine.DecodeSummary]:
    blocks = []
    while True:
        try:
            blocks.append(next(gen))
        except StopIteration as stop:
            return blocks, stop.value
