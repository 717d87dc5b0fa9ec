"""Work done on a piper voice at load, kept under <models>/.cache/piper/ so that a later start skips it.

onnxruntime optimizes a voice's graph every time a session is made (~1 s of CPU on the 2-core box),
patching in the alignment output costs ~0.3 s more, and cutting the graph for streaming synthesis
and checking the cut (tts.stream) ~1 s more: the same work at every start. The first start saves
what it made; later starts load it with the optimizations off and get the same graphs, so the same
audio. An entry is keyed by the voice file (path, size, mtime), what was made of it, onnxruntime's
version and the CPU (an optimized graph may hold CPU-specific layouts), and each file's sha256 is
checked at every load: a changed voice, a new onnxruntime, another CPU or a damaged cache file
means the work is done again from the voice file, which is always the reference.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import threading
from pathlib import Path

log = logging.getLogger(__name__)

CACHE_DIR = Path(".cache") / "piper"  # under the models folder (gitignored)


def entry(model: Path, what: str, **extra) -> tuple[Path, dict] | None:
    """(the cache's path stem for `what` made of `model`, the key it must have been made with), or None
    when the voice file cannot be read."""
    import onnxruntime

    from avatar import paths

    try:
        st = Path(model).stat()
    except OSError:
        return None
    key = {"voice": str(Path(model).resolve()), "what": what, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
           "onnxruntime": onnxruntime.__version__, "cpu": cpu_id(), **extra}
    name = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return paths.models_dir() / CACHE_DIR / f"{Path(model).stem}-{what}-{name}", key


def read(meta_path: Path, key: dict, files: dict[str, Path]) -> tuple[dict, dict[str, bytes]] | None:
    """(the saved metadata, each file's bytes) when the metadata holds `key` and every file its
    sha256 says; None when anything is missing, stale or damaged (a damaged file is logged)."""
    try:
        saved = json.loads(meta_path.read_text(encoding="utf-8"))
        data = {name: path.read_bytes() for name, path in files.items()}
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or {k: saved.get(k) for k in key} != key:
        return None
    digests = saved.get("sha256")
    if not isinstance(digests, dict) or any(digests.get(name) != sha256(blob) for name, blob in data.items()):
        log.warning("the cached voice graph %s is damaged: it is made again from the voice", meta_path.with_suffix(""))
        return None
    return saved, data


def write(meta_path: Path, key: dict, files: dict[str, Path], **meta) -> None:
    """Record `files` (written already) with their sha256s and `meta` under `key`; the metadata is
    written last, atomically, so a start that dies half-way leaves no entry that reads as whole."""
    digests = {name: sha256(path.read_bytes()) for name, path in files.items()}
    write_json(meta_path, {**key, **meta, "sha256": digests})
    _prune(meta_path, key)


_MADE_WITH = ("size", "mtime_ns", "onnxruntime", "cpu")  # what goes stale; the rest of a key says what was made


def _prune(kept: Path, key: dict) -> None:
    """Remove the entries this one replaces: the same thing made of the same voice file, but of an
    older file, onnxruntime or CPU (or before entries said what they hold), and entries of voice files
    that are gone. A kiosk updated for years keeps one copy of each, not one per update (a voice's
    graph is ~60 MB)."""
    import shutil

    slot = {k: v for k, v in key.items() if k not in _MADE_WITH}
    folder = kept.parent if kept.name != "meta.json" else kept.parent.parent
    for meta_path in list(folder.glob("*.json")) + list(folder.glob("*/meta.json")):
        if meta_path == kept:
            continue
        try:
            saved = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(saved, dict) or not isinstance(saved.get("voice"), str):
            continue
        gone = not Path(saved["voice"]).exists()  # made of a voice file that was removed since
        if saved["voice"] != key["voice"] and not gone:
            continue
        legacy = "what" not in saved and key["what"] == "voice"  # entries before 2026-12-03: the optimized voice
        if not gone and not legacy and {k: saved.get(k) for k in slot} != slot:
            continue
        try:
            if meta_path.name == "meta.json":
                shutil.rmtree(meta_path.parent)
            else:
                meta_path.with_suffix(".onnx").unlink(missing_ok=True)
                meta_path.unlink(missing_ok=True)
        except OSError as exc:
            log.info("cannot remove the stale cache entry %s: %s", meta_path, exc)


def partial(target: Path) -> Path:
    """A temporary name beside `target`, unique to this process and thread."""
    return target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.partial")


def cpu_id() -> str:
    """The machine and its CPU's feature flags: a graph optimized on one CPU may not suit another."""
    flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line for line in f if line.startswith(("flags", "Features"))), "")
    except OSError:
        flags = platform.processor()
    return f"{platform.machine()}-{hashlib.sha256(flags.encode()).hexdigest()[:12]}"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_json(path: Path, data: dict) -> None:
    tmp = partial(path)
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)
