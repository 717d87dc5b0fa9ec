"""The item a content scan finds (ContentItem) and the scan itself (_Scan: each recognised item
blanks its text so nothing is read twice), shared by the recognisers of content.py and
content_calendar.py."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from avatar.answer.checks.number_words import NUMBER_RE

@dataclass(frozen=True)
class ContentItem:
    """One facts-bearing item: `values` are the canonical readings (two for an ambiguous "halb sieben")."""
    kind: str  # time | price | percent | date | month | weekday | address | duration | floor | room | number | name
    values: tuple[str, ...]
    surface: str
    numbers: tuple[float, ...] = ()  # plain-number views, to match a fact's unlabelled numbers
    extra_keys: tuple[str, ...] = ()  # what this item also supports when it stands in a fact

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(f"{self.kind}:{v}" for v in self.values)

    @property
    def support_keys(self) -> frozenset[str]:
        return self.keys | frozenset(self.extra_keys)


@dataclass
class _Scan:
    """The text being scanned; each recognised item blanks its characters so nothing is read twice."""
    text: str
    lang: str
    items: list[ContentItem] = field(default_factory=list)

    def take(self, pattern: re.Pattern, handler) -> None:
        for m in list(pattern.finditer(self.text)):
            if not self.text[m.start():m.end()].strip() or "\0" in self.text[m.start():m.end()]:
                continue  # part of it was taken by an earlier, more specific pattern
            got = handler(m)
            if got is None:
                continue
            self.items.extend(got)
            self.text = self.text[:m.start()] + "\0" * (m.end() - m.start()) + self.text[m.end():]


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0").rstrip(".")


_I = re.IGNORECASE
_N = NUMBER_RE
_ORD_SUFFIX = r"(?:st|nd|rd|th)"
