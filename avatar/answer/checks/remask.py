"""Cheap self-consistency for a diffusion model: re-mask only the reply's facts-bearing tokens.

A second full decode doubles the decode time. A masked-diffusion model can instead re-decode just
the positions that carry the content (the digits of "18:00", the pieces of a name) with the rest
of its own reply fixed, in another unmasking order: a handful of masked positions take a step or
two. If the model was sure of a value it writes it again; a value it guessed tends to change.
This module finds those positions and builds the infill skeleton; the answerer runs the infill.
"""
from __future__ import annotations

from typing import Callable, Sequence

from avatar.answer.checks.common_words import common_words
from avatar.answer.checks.content import extract


def content_surfaces(text: str, lang: str) -> list[str]:
    """The surfaces a verification re-masks: every typed item and every name candidate."""
    content = extract(text, lang)
    common = common_words(lang)
    return [i.surface for i in content.items] + [n for n in content.names if n.lower() not in common]


def _find(seq: Sequence[int], sub: Sequence[int], taken: set[int]) -> int:
    for i in range(len(seq) - len(sub) + 1):
        if list(seq[i:i + len(sub)]) == list(sub) and not taken & set(range(i, i + len(sub))):
            return i
    return -1


def content_token_ranges(token_ids: Sequence[int], surfaces: Sequence[str],
                         encode: Callable[[str], list[int]]) -> list[tuple[int, int]]:
    """Token ranges of `token_ids` that spell the surfaces (first free occurrence, in order).

    A surface is looked up as the tokenizer encodes it alone and without its first piece (a word
    start marker or a different split at the word's edge); one not found is left fixed.
    """
    ranges: list[tuple[int, int]] = []
    taken: set[int] = set()
    for surface in surfaces:
        pieces = encode(surface)
        for sub in (pieces, pieces[1:]):
            if not sub:
                continue
            i = _find(token_ids, sub, taken)
            if i >= 0:
                ranges.append((i, i + len(sub)))
                taken |= set(range(i, i + len(sub)))
                break
    return sorted(ranges)


def remask_skeleton(header: Sequence[int], token_ids: Sequence[int], ranges: Sequence[tuple[int, int]],
                    tail: Sequence[int] = (), slack: int = 2) -> list:
    """header + the reply's tokens with each range turned into a slot (a little longer: "9" -> "10")."""
    from avatar.llm.infill import Slot

    skeleton: list = list(header)
    pos = 0
    for k, (s, e) in enumerate(ranges):
        skeleton += list(token_ids[pos:s])
        skeleton.append(Slot(e - s + slack, f"content{k}"))
        pos = e
    return skeleton + list(token_ids[pos:]) + list(tail)


def diffusion_verify(answerer, question: str, lang: str, facts, history=(), cancel=None):
    """A `verify` for check_and_choose over the DiffusionAnswerer's model (its lm, codec, options).

    The reply's own tokens stay fixed, its content positions are re-masked and infilled left to
    right (the first decode commits by confidence), so the model re-derives each value from the
    facts in another order.
    """
    import re
    from dataclasses import replace

    from avatar.answer.checks.candidate import Candidate
    from avatar.cancel import NEVER

    codec, lm = answerer.codec, answerer.lm
    prompt = answerer.prompt_ids(question, lang, facts, history)
    options = replace(answerer.options, order="left_to_right")
    special = set(i for i in codec.id.values() if i is not None)

    def verify(cand: Candidate, surfaces: list[str]) -> Candidate:
        ranges = content_token_ranges(cand.token_ids, surfaces, codec.text_ids)
        if not ranges or len(cand.token_ids) + 4 > options.gen_length:
            return replace(cand, decode_info={**cand.decode_info, "remasked": 0})
        header = [codec.id[f"<{lang}>"], codec.id[f"<{cand.mood}>"], codec.id["<sep>"]]
        # same-length slots: the model never saw a filler inside its text, so slack would fill with words
        skeleton = remask_skeleton(header, cand.token_ids, ranges, tail=[codec.id["<eos>"]], slack=0)
        result = lm.infill(prompt, skeleton, options, cancel=cancel or NEVER)
        text_ids = [t for t in result.token_ids[len(header):] if t not in special]
        text = re.sub(r"\s+([.,;:!?])", r"\1", lm.decode_text(text_ids)).strip()
        return Candidate(text, lang, cand.mood, text_ids,
                         {"steps": result.steps, "ms": round(result.ms, 2), "remasked": len(ranges)})

    return verify
