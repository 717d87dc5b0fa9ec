"""The running kiosk never imports the training or the bench code.

Runtime code is every module in avatar/ except avatar/train/, avatar/bench/ and the commands that
run a bench, an evaluation or training. None of it imports avatar.train or avatar.bench, so a kiosk
needs neither the corpus generator nor the small-talk corpora, starts without regenerating training
examples, and a bench cannot grow into a dependency of a stage (issue 12 item 4, issue 14 items 1
and 4)."""
import ast
from pathlib import Path

import avatar

PACKAGE = Path(avatar.__file__).resolve().parent
KIOSK = ["answer", "pipeline", "commands/ask.py", "commands/run.py"]
# not runtime: the training code, the benches, and the commands that start them
NOT_RUNTIME = ("train/", "bench/", "commands/bench", "commands/eval.py", "commands/train.py", "commands/soak.py")
OFF_LIMITS = ("avatar.train", "avatar.bench")


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
    offenders = {f.relative_to(PACKAGE).as_posix(): sorted(m for m in imported_modules(f)
                                                             if m == "avatar.train" or m.startswith("avatar.train."))
                 for f in files}
    assert {f: ms for f, ms in offenders.items() if ms} == {}


def test_no_runtime_module_imports_the_benches_or_the_training_code():
    files = runtime_files()
    names = {f.relative_to(PACKAGE).as_posix() for f in files}
    assert {"pipeline/voice_loop.py", "answer/knowledge.py", "aec/echo_canceller.py", "ui/window.py",
            "commands/run.py", "cli.py"} <= names
    assert not any(n.startswith(("bench/", "train/")) for n in names)
    offenders = {f.relative_to(PACKAGE).as_posix(): _off_limits(imported_modules(f)) for f in files}
    assert {f: ms for f, ms in offenders.items() if ms} == {}


def test_benches_live_in_the_bench_package():
    """No stage folder holds a bench or a measurement entry point (issue 14 item 4)."""
    strays = [f.relative_to(PACKAGE).as_posix() for f in PACKAGE.rglob("*.py")
              if f.stem in ("bench", "benchmark", "measure", "room", "erle", "adversarial", "soak")
              and f.parent.name not in ("bench", "commands")]  # commands/bench.py is `avatar bench`
    assert strays == []


def test_the_rule_sees_every_form_of_import():
    probe = PACKAGE / "answer" / "checks" / "lexicon.py"
    found = imported_modules(probe)
    assert "avatar.model_contract" in found and not any(m.startswith("avatar.train") for m in found)
    source = ("import avatar.train.corpus\nfrom avatar import train\nfrom ...train import ship\n"
              "def f():\n    from avatar.train.tables import build_tables\n")
    modules = imported_modules(PACKAGE / "answer" / "checks" / "probe.py", source)
    assert {"avatar.train.corpus", "avatar.train", "avatar.train.ship", "avatar.train.tables"} <= modules
    assert "avatar.train.corpus" in _off_limits(modules)
    assert _off_limits({"avatar.bench.echo", "avatar.benchmark", "avatar.trainer"}) == ["avatar.bench.echo"]
