"""The README's table of stages says where each stage lives and where its budget is set: it names
every stage folder and every `[budget]` key, so a newcomer finds both there, and they stay true."""
import re
import tomllib
from pathlib import Path

from avatar import stage_names

ROOT = Path(__file__).resolve().parents[1]


def _table() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("| stage | lives in | budget")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_readme_names_every_stage_folder_and_every_budget():
    rows = _table()
    folders = {m for r in rows for m in re.findall(r"`avatar/(\w+)/`", r[1])}
    budgets = {m for r in rows for m in re.findall(r"`(\w+)`", r[2])}
    settings = {m for r in rows for m in re.findall(r"`\[(\w+)\]`", r[3])}
    defaults = tomllib.loads((ROOT / "avatar" / "defaults.toml").read_text(encoding="utf-8"))
    stage_dirs = {"audio", "aec", "vad", "asr", "answer", "llm", "tts", "ui"}  # tests/test_import_stages.py
    assert stage_dirs <= folders and all((ROOT / "avatar" / f).is_dir() for f in folders)
    assert budgets == set(defaults["budget"]) - {"human_gap"}  # a reference line, not a stage's budget
    assert settings <= set(defaults)
    named = {v for k, v in vars(stage_names).items() if k.isupper() and isinstance(v, str)}
    assert budgets - {"turn"} <= named  # a budget is keyed by the stage's name (voice to voice: `turn`)
