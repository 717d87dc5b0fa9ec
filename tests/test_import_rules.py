"""The running kiosk never imports the training code: answer/ and pipeline/ (and the commands that
run the kiosk) do not import avatar.train, so a kiosk needs neither the corpus generator nor the
small-talk corpora, and starts without regenerating training examples (issue 12 item 4, issue 14 item 1)."""
import ast
from pathlib import Path

import avatar

PACKAGE = Path(avatar.__file__).resolve().parent
KIOSK = ["answer", "pipeline", "commands/ask.py", "commands/run.py"]
# evaluation tools that build their cases from the training corpus on purpose (issue 14 item 4 moves
# them out of answer/ into one benchmark package); nothing on the kiosk's path imports them
EVALUATION_TOOLS = {"answer/checks/adversarial.py"}


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
    return [f for f in files if f.relative_to(PACKAGE).as_posix() not in EVALUATION_TOOLS]


def test_the_kiosk_does_not_import_the_training_code():
    files = kiosk_files()
    assert len(files) > 20 and all(f.is_file() for f in files)
    offenders = {f.relative_to(PACKAGE).as_posix(): sorted(m for m in imported_modules(f)
                                                             if m == "avatar.train" or m.startswith("avatar.train."))
                 for f in files}
    assert {f: ms for f, ms in offenders.items() if ms} == {}


def test_the_rule_sees_every_form_of_import():
    probe = PACKAGE / "answer" / "checks" / "lexicon.py"
    found = imported_modules(probe)
    assert "avatar.model_contract" in found and not any(m.startswith("avatar.train") for m in found)
    source = ("import avatar.train.corpus\nfrom avatar import train\nfrom ...train import ship\n"
              "def f():\n    from avatar.train.tables import build_tables\n")
    modules = imported_modules(PACKAGE / "answer" / "checks" / "probe.py", source)
    assert {"avatar.train.corpus", "avatar.train", "avatar.train.ship", "avatar.train.tables"} <= modules
