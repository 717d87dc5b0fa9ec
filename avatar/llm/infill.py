"""Structured output by infilling: fixed skeleton tokens, masked slots the model fills.

A skeleton is a list of fixed token ids and `Slot`s. Each slot is `max_len` masked positions; a
filler token (pad or end-of-sequence) ends the slot early and is dropped, so a slot holds 0 to
`max_len` tokens. The fixed tokens are committed from the start and so can never change.
An answer template written with the mask id works too: each run of mask ids is one slot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, Union

from avatar.errors import ConfigError


@dataclass(frozen=True)
class Slot:
    max_len: int
    name: str = ""

    def __post_init__(self) -> None:
        if self.max_len < 1:
            raise ConfigError(f"slot '{self.name}' needs max_len >= 1, got {self.max_len}")


SkeletonItem = Union[int, Slot]


@dataclass
class InfillResult:
    token_ids: list[int]            # the filled record, fixed tokens and slot contents, fillers dropped
    text: str
    slots: list[list[int]]          # each slot's tokens, in skeleton order
    slot_texts: list[str]
    steps: int
    ms: float
    answer_ids: list[int] = field(default_factory=list)  # every position, fillers included
    names: list[str] = field(default_factory=list)        # each slot's name
    slot_ranges: list[tuple[int, int]] = field(default_factory=list)  # each slot's filled positions (fillers cut)
    confidence: list[float] = field(default_factory=list)  # per answer position: the decoder's confidence at commit

    def slot(self, name: str) -> str:
        """The text of the slot called `name`."""
        return self.slot_texts[self.names.index(name)]


@dataclass(frozen=True)
class SkeletonLayout:
    """A skeleton laid out as answer positions: the starting answer and each slot's range."""
    answer: list[int]
    slot_ranges: list[tuple[int, int]]
    slot_names: list[str]


def lay_out(skeleton: Sequence[SkeletonItem], mask_id: int) -> SkeletonLayout:
    answer: list[int] = []
    ranges, names = [], []
    for item in skeleton:
        if isinstance(item, Slot):
            ranges.append((len(answer), len(answer) + item.max_len))
            names.append(item.name)
            answer.extend([mask_id] * item.max_len)
        elif isinstance(item, int) and not isinstance(item, bool):
            if item == mask_id:  # a run of mask ids is one slot
                if ranges and ranges[-1][1] == len(answer) and answer[-1] == mask_id and not names[-1]:
                    ranges[-1] = (ranges[-1][0], len(answer) + 1)
                else:
                    ranges.append((len(answer), len(answer) + 1))
                    names.append("")
            answer.append(item)
        else:
            raise ConfigError(f"a skeleton holds token ids and Slot(max_len) items, got {item!r}")
    if not ranges:
        raise ConfigError("a skeleton needs at least one Slot to fill")
    return SkeletonLayout(answer, ranges, names)
