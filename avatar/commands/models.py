"""`avatar models`: list the models with their status, `--verify` checksums, `assemble` the Whisper
model from its packages, `import DIR` a model folder (piper voice, Hugging Face folder) into models/
(`--in-place`: leave it where it is and record its sha256 in the manifest.toml next to it)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from avatar import paths
from avatar import manifest
from avatar.asr import assets
from avatar.errors import ModelError


def add_arguments(parser) -> None:
    parser.add_argument("action", nargs="?", default="list", choices=("list", "assemble", "import"),
                        help="list (default) | assemble [NAME]: build a Whisper model from its packages | import DIR")
    parser.add_argument("target", nargs="?", help="the model name (assemble) or folder / .onnx voice (import)")
    parser.add_argument("--verify", action="store_true", help="check the sha256 of every file")
    parser.add_argument("--name", help="import: the name in models/ (default: the folder's name)")
    parser.add_argument("--kind", help="import: asr | tts | llm (default: guessed from the files)")
    parser.add_argument("--force", action="store_true", help="import: replace a model of the same name")
    parser.add_argument("--in-place", action="store_true",
                        help="import: leave the folder where it is and record its sha256 in manifest.toml next to it")
    parser.add_argument("--json", action="store_true", help="list as JSON")


def run(args, cfg) -> int:
    if args.action == "assemble":
        return _assemble(args.target or cfg.asr.model)
    if args.action == "import":
        if not args.target:
            raise ModelError("`avatar models import` needs a folder", hint="avatar models import path/to/model-folder")
        if getattr(args, "in_place", False):
            return _import_in_place(Path(args.target), args.kind, args.force)
        return _import(Path(args.target), args.name, args.kind, args.force)
    return _list(args.verify, args.json)


def _list(verify: bool, as_json: bool) -> int:
    models = paths.models_dir()
    entries = manifest.load_manifest(models)
    rows, failed = [], False
    for e in entries.values():
        folder = e.folder(models)
        present = [rel for rel in e.files if (folder / rel).is_file()]
        if not e.files:
            status = "ok (no checksums listed)" if folder.is_dir() else "missing"
        elif not present:
            if e.name in assets.WHISPER_PACKAGES:
                status = "not assembled yet (`avatar models assemble`)"
            else:
                status = f"not built yet (built {e.built})" if e.built else "missing"
        elif len(present) < len(e.files):
            status = f"incomplete: {len(e.files) - len(present)} of {len(e.files)} files missing"
        elif verify:
            bad = assets.verify(folder, e.files, progress=True)
            status = "ok (sha256 verified)" if not bad else "CORRUPT: " + "; ".join(bad)
        else:
            status = "ok"
        failed |= status.startswith(("CORRUPT", "incomplete", "missing"))
        rows.append({"name": e.name, "kind": e.kind, "status": status, "source": e.source, "files": len(e.files)})
    for p in sorted(models.iterdir()) if models.is_dir() else []:
        if p.is_dir() and not p.name.startswith(".") and p.name not in entries and not p.name.endswith(".partial"):
            rows.append({"name": p.name, "kind": "", "status": "not in the manifest (`avatar models import`)",
                         "source": str(p), "files": 0})
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        print(f"models in {models}:")
        for r in rows:
            print(f"  {r['name']:<22} {r['kind']:<9} {r['status']}")
            if r["source"]:
                print(f"  {'':<22}       from {r['source']}")
    return 1 if (verify and failed) else 0


def _assemble(name: str) -> int:
    models = paths.models_dir()
    expected = manifest.entry(name, models).files
    folder = models / name
    if folder.exists() and not assets.verify(folder, expected, progress=True, stamp=True):
        print(f"{name}: ok ({folder})")
        return 0
    shutil.rmtree(folder, ignore_errors=True)
    assets.assemble(name, folder, expected, progress=True)
    print(f"{name}: assembled and verified in {folder}")
    return 0


def _import(src: Path, name: str | None, kind: str | None, force: bool) -> int:
    models = paths.models_dir()
    src = src.expanduser().resolve()
    files: list[Path]
    if src.is_file() and src.suffix == ".onnx":  # a piper voice: VOICE.onnx + VOICE.onnx.json
        sidecar = src.with_name(src.name + ".json")
        if not sidecar.is_file():
            raise ModelError(f"the piper voice {src} has no {sidecar.name} next to it",
                             hint="a piper voice is two files: VOICE.onnx and VOICE.onnx.json")
        name, files, base = name or src.stem, [src, sidecar], src.parent
    elif src.is_dir():
        name, base = name or src.name, src
        files = [p for p in sorted(src.rglob("*")) if p.is_file()
                 and not any(part.startswith(".") for part in p.relative_to(src).parts)]
        if not files:
            raise ModelError(f"the folder {src} holds no files", hint="point at the model's folder")
    else:
        raise ModelError(f"no model folder or .onnx voice at {src}", hint="avatar models import path/to/model-folder")
    dest = models / name
    if dest.resolve() != base and not (src.is_file() and base == dest.resolve()):
        if dest.exists() and not force:
            raise ModelError(f"{dest} already exists", hint="pass --force to replace it, or --name to pick another name")
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for p in files:
            target = dest / p.relative_to(base)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, target)
        print(f"copied {len(files)} files into {dest}")
    hashes = manifest.hash_folder(dest)
    entry = manifest.ModelEntry(name, kind or _guess_kind(dest), f"imported from {src}", hashes)
    path = manifest.add_entry(entry, models, replace=force)
    print(f"registered {name} ({entry.kind or 'unknown kind'}, {len(hashes)} files) in {path}")
    return 0


def _import_in_place(src: Path, kind: str | None, force: bool) -> int:
    """A model folder outside models/ (a larger disk, a mounted share) checked like models/'s: its sha256
    go into the manifest.toml next to it, which the loader reads for a folder of that name there."""
    src = src.expanduser().resolve()
    if not src.is_dir():
        raise ModelError(f"no model folder at {src}", hint="avatar models import path/to/model-folder --in-place")
    hashes = manifest.hash_folder(src)
    if not hashes:
        raise ModelError(f"the folder {src} holds no files", hint="point at the model's folder")
    entry = manifest.ModelEntry(src.name, kind or _guess_kind(src), f"recorded in place at {src}", hashes)
    path = manifest.add_entry(entry, src.parent, replace=force)
    print(f"registered {src.name} ({entry.kind or 'unknown kind'}, {len(hashes)} files) in {path}; "
          "it is checked against these sha256 when it loads")
    return 0


def _guess_kind(folder: Path) -> str:
    names = {p.name for p in folder.iterdir()}
    if any(n.endswith(".onnx.json") for n in names):
        return "tts"
    if "model.bin" in names and "vocabulary.json" in names:
        return "asr"
    if "config.json" in names and any(n.endswith(".safetensors") for n in names):
        return "llm"
    return ""
