"""The decode loop of masked-diffusion language models: parallel decoding that streams.

The answer starts as N mask tokens after the prompt. It is decoded in blocks, left to right
(semi-autoregressive); inside a block every position sees every other. Each step predicts all
masked positions of the block and commits some of them, the most confident first: every one above
a confidence threshold (at least one), or a fixed count per step. A committed token never changes,
and a finished block is yielded at once, so speech can start on the first block. Once an
end-of-sequence token is committed, everything after it is end-of-sequence too, so the blocks
after it cost nothing.

Infilling is the same loop on an answer whose fixed tokens are committed from the start: only the
masked slots are decoded, and a filler (pad/EOS) ends a slot early instead of the whole reply.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Generator, Protocol, Sequence

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.errors import ConfigError
from avatar.llm.forward_pass import ModelForward
from avatar.llm.repetition import loop_cut
from avatar.trace import now


class DecodingLM(Protocol):
    """What the decode loops (here and ar_engine.py) use of the model they run; DiffusionLM has it.
    Declared here, below diffusion_lm.py, so that the loops need not import the module that drives them."""
    model: Any
    forward: ModelForward
    device: str
    mask_token_id: int
    eos_token_ids: tuple[int, ...]
    vocab_size: int

    def decode_text(self, ids: Sequence[int]) -> str: ...


class DecodeOverBudget(Exception):
    """A decode ran past `DecodeOptions.max_ms`: its reply would come later than it is worth waiting for
    (the answerer says what retrieval says instead)."""


def check_budget(options: "DecodeOptions", t0: float, steps: int) -> None:
    """Raise DecodeOverBudget when a decode started at `t0` has run longer than `options.max_ms`."""
    if options.max_ms > 0 and (now() - t0) * 1000.0 > options.max_ms:
        raise DecodeOverBudget(f"decode stopped after {(now() - t0) * 1000.0:.0f} ms and {steps} steps "
                               f"(llm.max_ms = {options.max_ms:g})")


CONFIDENCES = ("prob", "margin", "entropy")
ORDERS = ("confidence", "left_to_right", "random")


@dataclass(frozen=True)
class DecodeOptions:
    gen_length: int = 48          # answer positions (masks) after the prompt
    block_length: int = 16        # positions decoded together; blocks go left to right
    threshold: float = 0.9        # commit every masked position whose confidence exceeds this ...
    steps_per_block: int = 0      # ... or, if > 0, a fixed count per step so a block takes this many steps
    temperature: float = 0.0      # 0 = argmax (deterministic); > 0 = Gumbel-noise sampling
    confidence: str = "prob"      # prob | margin (top1 - top2) | entropy (exp(-entropy))
    seed: int = 0                 # for temperature > 0 and order "random"
    prompt_cache: bool = True
    order: str = "confidence"     # which positions a step commits: confidence | left_to_right | random
    banned_token_ids: tuple[int, ...] = ()  # never committed (the checks ban unsupported numbers)
    repetition_guard: bool = True
    logit_bias: tuple[tuple[int, float], ...] = ()  # (token id, nats added to its logit at every position)
    first_positions: tuple[int, ...] = ()  # answer positions committed in their block's first step, whatever
                                           # their confidence (the reply's kind before its words)
    max_ms: float = 0.0           # > 0: a decode still running after this long stops (DecodeOverBudget)

    def __post_init__(self) -> None:
        if self.gen_length < 1 or self.block_length < 1:
            raise ConfigError("gen_length and block_length must be at least 1")
        if self.confidence not in CONFIDENCES:
            raise ConfigError(f"confidence must be one of {', '.join(CONFIDENCES)}, got {self.confidence!r}")
        if self.order not in ORDERS:
            raise ConfigError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if not (math.isfinite(self.max_ms) and self.max_ms >= 0):
            raise ConfigError(f"max_ms must be 0 (no limit) or a positive number of milliseconds, got {self.max_ms!r}")

    @classmethod
    def from_config(cls, llm: Any, **overrides: Any) -> "DecodeOptions":
        """Options from the [llm] settings section (cfg.llm), then keyword overrides."""
        values = llm.as_dict() if hasattr(llm, "as_dict") else dict(llm)
        names = {f.name for f in fields(cls)}
        return replace(cls(**{k: v for k, v in values.items() if k in names}), **overrides)

    @property
    def one_per_step(self) -> "DecodeOptions":
        """The baseline: one token per forward pass."""
        return replace(self, steps_per_block=self.block_length, threshold=1.0)


@dataclass(frozen=True)
class Block:
    """A committed block: final, never changes. `token_ids` stop before an end-of-sequence token."""
    index: int
    token_ids: list[int]
    text: str
    t_ms: float       # since the decode started
    steps: int = 0    # forward passes so far
    last: bool = False


@dataclass
class DecodeResult:
    text: str
    token_ids: list[int]
    steps: int                     # decode forward passes (one per step)
    tokens: int                    # tokens of the reply (end-of-sequence not counted)
    ms: float
    first_block_ms: float | None
    blocks: list[Block] = field(default_factory=list)
    cache: str = "none"            # prompt cache used: exact | approximate | none
    prompt_passes: int = 0         # forward passes spent on the prompt alone
    stopped: str = "length"        # eos | length | repetition
    answer_ids: list[int] = field(default_factory=list)  # every answer position, fillers included
    confidence: list[float] = field(default_factory=list)  # per answer position: the decoder's confidence at commit

    @property
    def tokens_per_step(self) -> float:
        return self.tokens / self.steps if self.steps else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "tokens": self.tokens, "ms": round(self.ms, 2),
                "first_block_ms": None if self.first_block_ms is None else round(self.first_block_ms, 2),
                "tokens_per_step": round(self.tokens_per_step, 3), "cache": self.cache, "stopped": self.stopped}


@dataclass
class DecodeSummary:
    """What the generator returns when it is done (besides the blocks it yielded)."""
    answer: np.ndarray
    steps: int
    cache: str
    prompt_passes: int
    stopped: str
    confidence: list[float] = field(default_factory=list)  # per answer position, at commit (1.0: given)


StepObserver = Callable[[int, int, np.ndarray], None]  # (block index, step, answer ids (N,)) after a step




class BlockCloser:
    """Closes each committed block of one decode, for both decoders: the reply's text so far, the
    block's new piece of it, and why the decode stopped (length, eos, repetition)."""

    def __init__(self, lm, groups, is_stop: np.ndarray, stop_id: int, repetition_guard: bool, t0: float):
        self.lm, self.groups, self.is_stop, self.stop_id = lm, groups, is_stop, stop_id
        self.repetition_guard, self.t0 = repetition_guard, t0
        self.text, self.n_ids, self.stopped = "", 0, "length"

    def close(self, x: np.ndarray, b: int, start: int, end: int, steps: int) -> Block:
        ids, text, finished, repeated = committed_text(self.lm, x, self.groups, self.is_stop, start, end,
                                                       self.stop_id, self.repetition_guard)
        if repeated:
            self.stopped = "repetition"
        piece = text[len(self.text):] if text.startswith(self.text) else self.lm.decode_text(ids[self.n_ids:])
        block = Block(b, ids[self.n_ids:], piece, (now() - self.t0) * 1000.0, steps, last=finished)
        self.text, self.n_ids = text, len(ids)
        if finished and self.stopped != "repetition" and bool(self.is_stop[x[0]].any()):
            self.stopped = "eos"
        return block


def committed_text(lm, x: np.ndarray, groups, is_stop: np.ndarray, start: int, end: int, stop_id: int,
                   guard: bool) -> tuple[list[int], str, bool, bool]:
    """After the block [start, end) is committed (either decoder): the kept ids so far, their text,
    whether the answer is finished, and whether the repetition guard cut a loop (`guard`: a group
    that fell into a loop ends after one copy, the rest filled with `stop_id`)."""
    mask_id, n = lm.mask_token_id, x.shape[1]
    kept = _kept_positions(x[0], groups, is_stop, end)
    repeated = False
    if guard:
        for g_start, g_end in groups:
            if g_start < end and g_end > start:
                content = [i for i in kept if g_start <= i < g_end]
                cut = loop_cut(x[0, content].tolist(), search_from=sum(i < start for i in content))
                if cut is not None and cut < len(content):
                    x[0, content[cut]:g_end] = stop_id
                    repeated = True
        kept = _kept_positions(x[0], groups, is_stop, end)
    ids = x[0, kept].tolist()
    text = lm.decode_text(ids)
    finished = not (x[0, end:] == mask_id).any() and not _kept_positions(x[0], groups, is_stop, n)[len(kept):]
    if text.endswith("\ufffd") and not finished:  # half a multi-byte character: wait for the rest
        text = text[:-1]
    return ids, text, finished, repeated

def decode_inputs(lm: DecodingLM, prompt_ids, options: DecodeOptions, answer, groups, stop_ids):
    """What every decoder (diffusion or autoregressive) starts from: the prompt and answer as
    (1, n) int64 arrays, the groups, the ids that stop a group (and as a mask), the banned ids (the
    mask always), the logit bias and the seeded random generator. The loops run in numpy whatever
    the model runs in (its logits come back as numpy arrays, avatar/llm/forward_pass.py)."""
    mask_id = lm.mask_token_id
    prompt = np.asarray(prompt_ids, dtype=np.int64).reshape(1, -1)
    if answer is None:
        answer = [mask_id] * options.gen_length
    x = np.array([list(answer)], dtype=np.int64)
    groups = list(groups) if groups is not None else [(0, x.shape[1])]
    stop_ids = list(stop_ids) if stop_ids is not None else list(lm.eos_token_ids)
    is_stop = np.zeros(lm.vocab_size, dtype=bool)
    is_stop[stop_ids] = True
    banned = np.array(sorted({mask_id, *(t for t in options.banned_token_ids if 0 <= t < lm.vocab_size)}),
                      dtype=np.int64)
    bias = [(t, b) for t, b in options.logit_bias if 0 <= t < lm.vocab_size and b]
    bias_ids = np.array([t for t, _ in bias], dtype=np.int64)
    bias_values = np.array([b for _, b in bias], dtype=np.float32)
    gen = np.random.default_rng(options.seed)
    return prompt, x, groups, stop_ids, is_stop, banned, bias_ids, bias_values, gen

def decode(lm: DecodingLM, prompt_ids: Sequence[int] | np.ndarray, options: DecodeOptions, *,
           answer: Sequence[int] | None = None, groups: Sequence[tuple[int, int]] | None = None,
           stop_ids: Sequence[int] | None = None, cancel: CancelToken = NEVER,
           on_step: StepObserver | None = None) -> Generator[Block, None, DecodeSummary]:
    """Yield committed blocks of the answer; return a DecodeSummary.

    `answer`: the starting answer (mask id where to decode, fixed tokens elsewhere); default
    `gen_length` masks. `groups`: answer ranges that a stop token ends (the rest of the range is
    filled with it); default the whole answer. `stop_ids`: the tokens that end a group; default
    the family's end-of-sequence tokens.
    """
    t0 = now()
    mask_id = lm.mask_token_id
    prompt, x, groups, stop_ids, is_stop, banned, bias_ids, bias_values, gen = decode_inputs(
        lm, prompt_ids, options, answer, groups, stop_ids)
    n = x.shape[1]
    source = lm.forward.start(prompt, options.prompt_cache)
    steps, closer = 0, BlockCloser(lm, groups, is_stop, stop_ids[0], options.repetition_guard, t0)
    committed_conf = np.ones(n, dtype=np.float32)  # how sure each commit was

    for b, start in enumerate(range(0, n, options.block_length)):
        end = min(start + options.block_length, n)
        if (x[0, start:end] == mask_id).any():
            source.begin_block(x, start)
        step = 0
        while (masked := x[0, start:end] == mask_id).any():
            cancel.raise_if_cancelled()
            check_budget(options, t0, steps)
            logits = np.array(source.logits(x, start, end), dtype=np.float32)  # a copy: banned ids are set in place
            steps += 1
            if bias_ids.size:
                logits[:, bias_ids] += bias_values
            logits[:, banned] = -math.inf
            # predict the block, pick what to commit (_choose), commit it; a stop token ends its group
            predicted, confidence, chosen = _choose(logits, masked, start, end, step, options, gen)
            x[0, start + chosen] = predicted[chosen]
            committed_conf[start + chosen] = confidence[chosen]
            end_stopped_groups(x, start + chosen[is_stop[predicted[chosen]]], groups, mask_id)
            step += 1
            if on_step is not None:
                on_step(b, step, x[0].copy())

        block = closer.close(x, b, start, end, steps)
        yield block
        if block.last:
            break
    return DecodeSummary(x[0], steps, source.cache, source.prompt_passes, closer.stopped, committed_conf.tolist())


def _choose(logits: np.ndarray, masked: np.ndarray, start: int, end: int, step: int, options: DecodeOptions,
            gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step's prediction for every position of the block, its confidence, and the block
    offsets to commit now."""
    # 1. predict every masked position of the block
    predicted = sample(logits, options.temperature, gen)
    confidence = _confidence(logits, predicted, options.confidence)
    # 2. how many to commit: above the threshold (at least one), or a fixed count per step
    left = int(masked.sum())
    if options.steps_per_block > 0:
        k = math.ceil(left / max(1, options.steps_per_block - step))
    else:
        k = max(1, int((confidence[masked] > options.threshold).sum()))
    # 3. which ones: the most confident (or leftmost / random, for the checks' second decode)
    if options.order == "confidence":
        rank = confidence
    elif options.order == "left_to_right":
        rank = -np.arange(end - start, dtype=np.float32)
    else:
        rank = gen.random(end - start).astype(np.float32)
    rank = np.where(masked, rank, np.float32(-math.inf))
    if step == 0 and options.first_positions:
        first = [p - start for p in options.first_positions if start <= p < end and bool(masked[p - start])]
        if first:
            rank[first] = math.inf
            k = max(k, len(first))
    chosen = np.argsort(-rank, kind="stable")[:min(k, left)]  # the k best; ties: the leftmost
    return predicted, confidence, chosen


def sample(logits: np.ndarray, temperature: float, gen: np.random.Generator) -> np.ndarray:
    """Each row's token: argmax, or Gumbel-max sampling at `temperature` (in float64: low precision hurts)."""
    if temperature > 0:
        noise = gen.random(logits.shape)
        return (logits.astype(np.float64) / temperature - np.log(-np.log(noise))).argmax(-1)
    return logits.argmax(-1)


def end_stopped_groups(x: np.ndarray, stopped_at: Sequence[int] | np.ndarray, groups: Sequence[tuple[int, int]],
                        mask_id: int) -> None:
    """A committed stop token ends its group: its masked rest becomes that token (and any token
    already committed after it is no longer part of the reply)."""
    for pos in sorted(np.asarray(stopped_at).reshape(-1).tolist()):
        g_end = next((ge for gs, ge in groups if gs <= pos < ge), pos + 1)
        rest = x[0, pos + 1:g_end]
        rest[rest == mask_id] = x[0, pos]


def confidence_stats(confidence: Sequence[float], positions: Sequence[int]) -> dict[str, float]:
    """The least sure commit and the geometric mean over the given answer positions (the reply's
    tokens): a reply the model had to guess at shows a low minimum."""
    values = [max(1e-6, float(confidence[i])) for i in positions if i < len(confidence)]
    if not values:
        return {"confidence_min": 1.0, "confidence_mean": 1.0}
    return {"confidence_min": round(min(values), 4),
            "confidence_mean": round(math.exp(sum(math.log(v) for v in values) / len(values)), 4)}


def _confidence(logits: np.ndarray, predicted: np.ndarray, kind: str) -> np.ndarray:
    shifted = logits - logits.max(-1, keepdims=True)  # finite: a row always has an unbanned id
    probs = np.exp(shifted)
    probs /= probs.sum(-1, keepdims=True)
    if kind == "prob":
        return np.take_along_axis(probs, predicted[:, None], -1)[:, 0]
    if kind == "margin":
        top2 = -np.partition(-probs, 1, axis=-1)[:, :2]
        return top2[:, 0] - top2[:, 1]
    entropy = -(probs * np.log(np.maximum(probs, 1e-12))).sum(-1)
    return np.exp(-entropy)  # 1 for a certain prediction, like prob


def _kept_positions(answer: np.ndarray, groups: Sequence[tuple[int, int]], is_stop: np.ndarray,
                    upto: int) -> list[int]:
    """Answer positions below `upto` that are reply text: a group's first stop token and what
    follows it in the group are dropped; positions outside every group (fixed tokens) are kept."""
    stops = is_stop[answer].tolist()
    dropped = [False] * len(stops)
    for g_start, g_end in groups:
        first = next((i for i in range(g_start, g_end) if stops[i]), g_end)
        for i in range(first, g_end):
            dropped[i] = True
    return [i for i in range(upto) if not dropped[i]]
