"""The mouth of the character: the shape each viseme the TTS emits asks for (docs/INTERFACES.md),
and a viseme cue as the widget keeps it (the clock time it becomes audible). No Qt."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MouthShape:
    open: float   # 0 closed .. 1 wide open
    width: float  # 0 narrow (rounded lips) .. 1 wide
    teeth: bool = False
    tongue: bool = False
    pressed: bool = False  # lips pressed together (M, B, P)
    lip_bite: bool = False  # lower lip under the teeth (F, V)


# Viseme names the TTS emits (see docs/INTERFACES.md) and how each looks.
VISEMES: dict[str, MouthShape] = {
    "rest": MouthShape(0.0, 0.55),
    "A": MouthShape(0.95, 0.75),
    "E": MouthShape(0.55, 0.9, teeth=True),
    "I": MouthShape(0.35, 1.0, teeth=True),
    "O": MouthShape(0.8, 0.42),
    "U": MouthShape(0.45, 0.3),
    "M": MouthShape(0.0, 0.6, pressed=True),
    "F": MouthShape(0.2, 0.75, teeth=True, lip_bite=True),
    "L": MouthShape(0.5, 0.7, tongue=True),
    "S": MouthShape(0.18, 0.85, teeth=True),
    "T": MouthShape(0.3, 0.75, teeth=True, tongue=True),
    "K": MouthShape(0.45, 0.7),
    "R": MouthShape(0.4, 0.55),
    "W": MouthShape(0.3, 0.25),
    "CH": MouthShape(0.35, 0.5, teeth=True),
    "TH": MouthShape(0.25, 0.75, teeth=True, tongue=True),
}


@dataclass(frozen=True)
class VisemeCue:
    at: float
    duration: float
    viseme: str
    level: float
