"""A shipped model is checked against models/manifest.toml when it loads, so a damaged file is refused.

A folder is shipped when the manifest next to it (or the one in the models folder) lists it by
name, wherever it is (`avatar models import DIR --in-place` writes the one next to a folder outside
models/); a foreign folder (listed nowhere) loads unchecked for benchmarks and tests, and the kiosk's
answerer refuses it (`listed_only`). Hashing a model costs seconds,
so a good result is remembered per file by (path, size, mtime_ns) in `<models>/.verified/<name>.json`
and later starts only stat the files. A file rewritten in place gets a new mtime and is hashed again.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from avatar import paths
from avatar import manifest
from avatar.errors import ModelError

log = logging.getLogger(__name__)

VERIFIED_DIR = ".verified"  # under the models folder (gitignored): the cache of good checks


@dataclass(frozen=True)
class Integrity:
    state: str  # verified (hashed now) | cached (unchanged since a good check) | foreign (not in a manifest)
    detail: str


def shipped_entry(folder: Path) -> tuple[manifest.ModelEntry, Path] | None:
    """(manifest entry, models folder) when `folder` is a model the manifest lists, else None."""
    folder = Path(folder).resolve()
    for models in dict.fromkeys((folder.parent, paths.models_dir().resolve())):
        e = manifest.load_manifest(models).get(folder.name)
        if e is not None and e.files and (models / e.name).resolve() == folder:
            return e, models
    return None


def check_model(folder: Path, listed_only: bool = False) -> Integrity:
    """Verify a shipped model's files (sha256, cached); raise ModelError naming a file that differs.
    `listed_only` (the kiosk's answerer): a folder no manifest lists is refused, wherever it is, since a
    damaged copy of it could not be told."""
    folder = Path(folder).resolve()
    found = shipped_entry(folder)
    if found is None and listed_only:
        raise ModelError(f"{folder} is listed in no model manifest (models/manifest.toml, or manifest.toml "
                         "next to the folder), so its files cannot be checked",
                         hint=f"record their sha256: `avatar models import {folder}` (copies it into models/) or "
                              f"`avatar models import {folder} --in-place` (writes {folder.parent / 'manifest.toml'})")
    if found is None:
        return Integrity("foreign", "not listed in models/manifest.toml: no checksum to verify")
    entry, models = found
    cache_file = models / VERIFIED_DIR / f"{entry.name}.json"
    cache = _read_cache(cache_file)
    hashed = 0
    for rel, sha in sorted(entry.files.items()):
        path = folder / rel
        try:
            st = path.stat()
        except OSError:
            raise ModelError(f"{path} is missing (models/manifest.toml lists it for {entry.name})",
                             hint=f"reinstall the model {entry.name}, then `avatar models --verify`") from None
        key = str(path)
        if cache.get(key) == [st.st_size, st.st_mtime_ns, sha]:
            continue
        hashed += 1
        actual = manifest.sha256_file(path)
        if actual != sha:
            cache.pop(key, None)
            _write_cache(cache_file, cache)
            raise ModelError(f"{path} is damaged: its sha256 is {actual[:12]}… but models/manifest.toml "
                             f"says {sha[:12]}… for {entry.name}",
                             hint=f"reinstall the model {entry.name} (copy the folder again), "
                                  "then `avatar models --verify` checks every model")
        cache[key] = [st.st_size, st.st_mtime_ns, sha]
    if hashed:
        _write_cache(cache_file, cache)
        return Integrity("verified", f"sha256 of {len(entry.files)} files verified against the manifest")
    return Integrity("cached", f"sha256 of {len(entry.files)} files verified against the manifest "
                                "(unchanged since the last check)")


def _read_cache(path: Path) -> dict[str, list]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, cache: dict[str, list]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.partial")
        tmp.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:  # a read-only models folder is fine: the files are hashed again next time
        log.info("cannot remember the model check in %s: %s", path, exc)
