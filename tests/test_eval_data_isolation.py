"""The held-out evaluation packs never reach what the kiosk says or what the model learns: no module of
the answerer or of training names them (pack_eval.py, the scorer, reads the packs it is given)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_answer_or_training_module_names_the_evaluation_packs():
    offenders = []
    for folder in ("avatar/answer", "tools/avatar_dev/train"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "pack_eval.py":
                continue
            text = path.read_text(encoding="utf-8")
            if "evals/packs" in text or "packs/test" in text:
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def test_every_test_pack_folder_has_a_data_card():
    for split in ("test", "test2", "test3", "dev2", "dev3", "dev4", "dev5"):
        folder = ROOT / "evals" / "packs" / split
        if split.startswith("test") and not (folder / "README.md").exists():
            # test/ is described in evals/README.md
            assert split == "test" and "test/" in (ROOT / "evals" / "README.md").read_text(encoding="utf-8")
            continue
        assert (folder / "README.md").exists(), folder
