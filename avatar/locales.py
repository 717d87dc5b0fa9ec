"""The visitor- and operator-facing texts of one language, read from locales/<lang>.toml.

Part of the shared core and free of Qt: the window, the headless runner and the pipeline's spoken
lines (the apology, "please say it again") read the same texts.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from avatar.errors import ConfigError
from avatar.paths import locales_dir

LANGUAGES = ("de", "en")


@dataclass(frozen=True)
class Strings:
    lang: str
    table: dict[str, Any]

    def get(self, key: str, **values: Any) -> str:
        """The text at a dotted key ("hud.title"), with {placeholders} filled; the key itself if missing."""
        node: Any = self.table
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                return key
            node = node[part]
        if not isinstance(node, str):
            return key
        return node.format(**values) if values else node

    def has(self, key: str) -> bool:
        return self.get(key) != key

    def stage_name(self, stage: str) -> str:
        """A stage's friendly name ("asr" -> "speech recognition"), falling back to a generic one."""
        base = stage.split(".")[0].split(":")[0]
        return self.get(f"stage.{base}") if self.has(f"stage.{base}") else self.get("stage.other")

    @property
    def persona(self) -> dict[str, str]:
        return dict(self.table.get("persona", {}))


@lru_cache(maxsize=8)
def _load(path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"locale file not found: {path}",
                          hint="the locales/ folder ships with the program; reinstall or restore it") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"locale file {path} is not valid TOML: {exc}") from None


def load_strings(lang: str, folder: Path | None = None) -> Strings:
    if lang not in LANGUAGES:
        raise ConfigError(f"no texts for language '{lang}'", hint=f"use one of {', '.join(LANGUAGES)}")
    path = (folder or locales_dir()) / f"{lang}.toml"
    return Strings(lang, _load(str(path)))


def flat_keys(table: dict[str, Any], prefix: str = "") -> set[str]:
    """Every dotted key of a locale table (the test compares German and English with it)."""
    keys: set[str] = set()
    for k, v in table.items():
        dotted = f"{prefix}{k}"
        keys |= flat_keys(v, dotted + ".") if isinstance(v, dict) else {dotted}
    return keys
