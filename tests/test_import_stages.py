"""The README's rule, read from the source: stages never import each other.

`avatar/<stage>/` holds one stage each; a module in a stage folder imports its own folder and the
shared core (the modules directly in avatar/, docs/INTERFACES.md), nothing else of the project. The pipeline, the commands
and the CLI wire stages together and may import any of them; the training code (tools/avatar_dev/train/) and
the benches (tools/avatar_dev/bench/) are not stages, and no runtime module imports them
(tests/test_import_rules.py).
Every import counts, also one inside a function (a lazy import is still a dependency).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

AVATAR = Path(__file__).resolve().parents[1] / "avatar"

STAGES = ("audio", "aec", "vad", "asr", "answer", "llm", "tts", "ui")

# The shared core (docs/INTERFACES.md): the modules directly in avatar/, small and with no stage
# behind them, except the entry points, which wire every stage together.
ENTRY_POINTS = {"avatar.cli", "avatar.__main__"}
CORE = {"avatar"} | {f"avatar.{p.stem}" for p in AVATAR.glob("*.py") if p.stem != "__init__"} - ENTRY_POINTS

# Stage-to-stage edges the README names: the answerer is "retrieval + diffusion LM + checks".
ALLOWED = {("answer", "llm")}


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _source(module: str, root: Path) -> Path:
    return (root.parent / module.replace(".", "/")).with_suffix(".py")


def _imports(path: Path, root: Path = AVATAR) -> list[tuple[int, str]]:
    """(line, dotted module) for every project import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:  # `from avatar import config`: the name is the module imported
                sub = f"{module}.{alias.name}"
                is_module = _source(sub, root).exists() or _source(sub, root).with_suffix("").is_dir()
                found.append((node.lineno, sub if is_module else module))
    return [(line, m) for line, m in dict.fromkeys(found) if m == "avatar" or m.startswith("avatar.")]


def _is_core(module: str) -> bool:
    return module == "avatar" or any(module == c or module.startswith(c + ".") for c in CORE - {"avatar"})


def _top(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def stage_violations(stage: str, root: Path = AVATAR) -> list[str]:
    bad = []
    for path in sorted((root / stage).rglob("*.py")):
        for line, module in _imports(path, root):
            target = _top(module)
            if target == stage or _is_core(module) or (stage, target) in ALLOWED:
                continue
            bad.append(f"{path.relative_to(root.parent)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_imports_only_itself_and_the_core(stage):
    assert (AVATAR / stage).is_dir(), f"README names avatar/{stage}/ as a stage folder"
    assert stage_violations(stage) == []


def test_the_core_imports_no_stage():
    """Otherwise a stage would reach another one through the core."""
    bad = []
    for module in sorted(CORE - {"avatar"}):
        path = AVATAR.parent / (module.replace(".", "/") + ".py")
        assert path.is_file(), f"core module {module} is listed but missing"
        for line, imported in _imports(path):
            if not _is_core(imported):
                bad.append(f"{module}:{line} imports {imported}")
    assert bad == []


def test_the_checker_sees_every_kind_of_import(tmp_path):
    """The parser itself: plain, from, package-relative and function-local imports all count."""
    pkg = tmp_path / "avatar" / "vad"
    pkg.mkdir(parents=True)
    for other in ("__init__.py", "config.py", "tts/__init__.py", "audio/convert.py", "pipeline/build.py"):
        (tmp_path / "avatar" / other).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "avatar" / other).write_text("")
    (pkg / "__init__.py").write_text("from .endpointer import X\n")
    (pkg / "endpointer.py").write_text(
        "import avatar.asr.whisper_asr\n"
        "from avatar import config, tts\n"
        "from ..audio import convert\n"
        "from avatar.frames import AudioFrame\n"
        "def f():\n"
        "    from avatar.pipeline import build\n")
    found = [v.split(" imports ")[1] for v in stage_violations("vad", root=tmp_path / "avatar")]
    assert found == ["avatar.asr.whisper_asr", "avatar.tts", "avatar.audio.convert", "avatar.pipeline.build"]
