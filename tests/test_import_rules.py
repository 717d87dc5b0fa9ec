"""The running kiosk never imports the training or the bench code, and a kiosk install does not carry it.

The benches, evaluations and training are the avatar_dev package in tools/ (its own distribution,
avatar-dev); the kiosk is the avatar package. Runtime code is every module of avatar/ except the
commands that run a bench, an evaluation or training. None of it imports avatar_dev, so a kiosk needs
neither the corpus generator nor the small-talk corpora, starts without regenerating training
examples, and a bench cannot grow into a dependency of a stage (issue 12 item 4, issue 14 items 1
and 4, issue 38 item 5)."""
import ast
import sys
import tomllib
from pathlib import Path

import pytest

import avatar

PACKAGE = Path(avatar.__file__).resolve().parent
ROOT = PACKAGE.parent
DEV = ROOT / "tools" / "avatar_dev"
KIOSK = ["answer", "pipeline", "commands/ask.py", "commands/run.py"]
# not runtime: the commands that start a bench, an evaluation or training (thin: the work is in avatar_dev)
NOT_RUNTIME = ("commands/bench", "commands/eval.py", "commands/train.py", "commands/soak.py")
OFF_LIMITS = ("avatar_dev",)


def imported_modules(path: Path, source: str | None = None) -> set[str]:
    """Every module a file imports, at the top or inside a function, absolute or relative."""
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(("avatar", *path.relative_to(PACKAGE).parent.parts))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)  # `from avatar import train`
    return names


def kiosk_files() -> list[Path]:
    files = []
    for entry in KIOSK:
        path = PACKAGE / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def runtime_files() -> list[Path]:
    return [f for f in sorted(PACKAGE.rglob("*.py")) if not f.relative_to(PACKAGE).as_posix().startswith(NOT_RUNTIME)]


def _off_limits(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == o or m.startswith(o + ".") for o in OFF_LIMITS))


def test_the_kiosk_does_not_import_the_training_code():
    files = kiosk_files()
    assert len(files) > 20 and all(f.is_file() for f in files)
    offenders = {f.relative_to(PACKAGE).as_posix(): _off_limits(imported_modules(f)) for f in files}
    assert {f: ms for f, ms in offenders.items() if ms} == {}


def test_no_runtime_module_imports_the_benches_or_the_training_code():
    files = runtime_files()
    names = {f.relative_to(PACKAGE).as_posix() for f in files}
    assert {"pipeline/voice_loop.py", "answer/knowledge.py", "aec/echo_canceller.py", "ui/window.py",
            "commands/run.py", "cli.py"} <= names
    assert not (PACKAGE / "bench").exists() and not (PACKAGE / "train").exists()
    offenders = {f.relative_to(PACKAGE).as_posix(): _off_limits(imported_modules(f)) for f in files}
    assert {f: ms for f, ms in offenders.items() if ms} == {}


def test_benches_live_in_the_developer_tools():
    """No kiosk folder holds a bench or a measurement entry point (issue 14 item 4)."""
    strays = [f.relative_to(PACKAGE).as_posix() for f in PACKAGE.rglob("*.py")
              if f.stem in ("bench", "benchmark", "measure", "room", "erle", "adversarial", "soak", "trainer")
              and f.parent.name != "commands"]  # commands/bench.py is `avatar bench`
    assert strays == []
    assert (DEV / "bench" / "echo.py").is_file() and (DEV / "train" / "trainer.py").is_file()


def test_a_kiosk_install_carries_only_the_kiosk_package():
    """The top pyproject's package list is the avatar package; the tools are their own distribution."""
    from setuptools import find_packages

    top = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = find_packages(str(ROOT), include=top["tool"]["setuptools"]["packages"]["find"]["include"])
    assert "avatar" in found and "avatar.answer.retrieval" in found
    assert not [p for p in found if not (p == "avatar" or p.startswith("avatar."))], found
    tools = tomllib.loads((ROOT / "tools" / "pyproject.toml").read_text(encoding="utf-8"))
    dev = find_packages(str(ROOT / "tools"), include=tools["tool"]["setuptools"]["packages"]["find"]["include"])
    assert {"avatar_dev", "avatar_dev.bench", "avatar_dev.train", "avatar_dev.train.venues"} <= set(dev)


@pytest.mark.parametrize("argv", [["bench-checks", "--repeat", "1"], ["bench-echo", "office"], ["train"]])
def test_a_dev_command_without_the_tools_says_what_to_install(monkeypatch, capsys, argv):
    from avatar.cli import main

    for name in [m for m in sys.modules if m == "avatar_dev" or m.startswith("avatar_dev.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "avatar_dev", None)  # as if avatar-dev were not installed
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"`avatar {argv[0]}` needs the developer tools" in err and "pip install -e ./tools" in err
    assert "Traceback" not in err


def test_the_rule_sees_every_form_of_import():
    probe = PACKAGE / "answer" / "checks" / "lexicon.py"
    found = imported_modules(probe)
    assert "avatar.model_contract" in found and not any(m.startswith("avatar_dev.train") for m in found)
    source = ("import avatar_dev.train.corpus\nfrom avatar_dev import train\nfrom avatar_dev.train import ship\n"
              "from ..retrieval import words\ndef f():\n    from avatar_dev.train.tables import build_tables\n")
    modules = imported_modules(PACKAGE / "answer" / "checks" / "probe.py", source)
    assert {"avatar_dev.train.corpus", "avatar_dev.train", "avatar_dev.train.ship", "avatar_dev.train.tables"} <= modules
    assert "avatar.answer.retrieval.words" in modules  # relative imports resolved
    assert "avatar_dev.train.corpus" in _off_limits(modules)
    assert _off_limits({"avatar_dev.bench.echo", "avatar_devices", "avatar.trainer"}) == ["avatar_dev.bench.echo"]
