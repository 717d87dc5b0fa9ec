"""A large knowledge pack for scale tests: the sample venue's facts plus generated ones.

`write_synthetic_pack(folder, n)` writes a valid `venue.toml` with `n` facts: the sample pack's
own facts first, then facts about made-up collections, rooms, events and services whose names are
pronounceable nonsense words (unique per fact), so a pack of thousands of facts has a vocabulary
of thousands of words, with German compounds ("Kalomersaal") like a real venue's. The same seed
gives the same pack; `SyntheticFact` records say which generated fact a name belongs to, so a test
can ask for it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from avatar.paths import ROOT

SAMPLE = ROOT / "assets" / "venues" / "sample" / "venue.toml"
_SYLLABLES = ("ka lo mer tin sa vor bel ru den fi gra hul op zen wi ster mon pa rik lu fen dor "
              "sil ba nem to gun ha vel mis tra ko bri lan fur ze ol quin mar sel dru pi").split()
# (topic, German, English): {a}, {b} are names, {n} a number, {d} a weekday.
_TEMPLATES = (
    ("rooms", "Die Sammlung {A} ist im Raum {n} zu sehen, gleich neben dem {B}saal.",
     "The {A} collection is in room {n}, right next to the {B} hall."),
    ("events", "Der {A}abend mit {B} beginnt am {de_d} um {n} Uhr.",
     "The {A} evening with {B} starts on {en_d} at {n} o'clock."),
    ("services", "Die {A}werkstatt verleiht Geräte von {B} gegen Pfand.",
     "The {A} workshop lends tools by {B} against a deposit."),
    ("about", "Das Exponat {A} stammt aus {B} und wurde im Jahr 19{n} gefunden.",
     "The exhibit {A} comes from {B} and was found in 19{n}."),
    ("directions", "Zum {A}turm geht es über die {B}treppe im Nordflügel.",
     "The {A} tower is reached by the {B} stairs in the north wing."),
    ("prices", "Der Katalog {A} kostet {n} € im Laden am {B}hof.",
     "The {A} catalogue costs {n} € in the shop at {B} court."),
)
_DAYS = (("Montag", "Monday"), ("Dienstag", "Tuesday"), ("Mittwoch", "Wednesday"), ("Donnerstag", "Thursday"),
         ("Freitag", "Friday"), ("Samstag", "Saturday"), ("Sonntag", "Sunday"))


@dataclass(frozen=True)
class SyntheticFact:
    id: str
    topic: str
    name: str  # the fact's own made-up name, as written in the pack ("Kalomer")
    other: str  # the second made-up name it mentions


def _names(rng: random.Random, count: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((3, 3, 4))))
        # unique, so every name points at one fact
        if word not in seen and len(word) >= 6:
            seen.add(word)
            out.append(word.capitalize())
    return out


def synthetic_pack(n: int, seed: int = 13) -> tuple[str, list[SyntheticFact]]:
    """The text of a pack with `n` facts (at least the sample's), and its generated facts."""
    base = SAMPLE.read_text(encoding="utf-8")
    have = base.count("\n[[fact]]")
    rng = random.Random(seed)
    count = max(0, n - have)
    names = _names(rng, 2 * count)
    lines, made = [base.rstrip(), "", "# --- generated -----------------------------------------------------------------------"], []
    for i in range(count):
        topic, de, en = _TEMPLATES[i % len(_TEMPLATES)]
        a, b = names[2 * i], names[2 * i + 1]
        day = _DAYS[rng.randrange(7)]
        values = {"A": a, "B": b, "n": rng.randrange(10, 99), "de_d": day[0], "en_d": day[1]}
        fid = f"gen-{i:05d}"
        made.append(SyntheticFact(fid, topic, a, b))
        lines += ["", "[[fact]]", f'id = "{fid}"', f'topic = "{topic}"',
                  f'de = "{de.format(**values)}"', f'en = "{en.format(**values)}"', f'keywords = ["{a}", "{b}"]']
    return "\n".join(lines) + "\n", made


def write_synthetic_pack(folder: str | Path, n: int, seed: int = 13) -> tuple[Path, list[SyntheticFact]]:
    """Write `folder/venue.toml` with `n` facts; returns the folder and the generated facts."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    text, made = synthetic_pack(n, seed)
    (folder / "venue.toml").write_text(text, encoding="utf-8")
    return folder, made
