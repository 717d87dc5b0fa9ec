"""Paths typed on the command line mean the current folder; paths in settings files the project root."""
import json

from avatar import paths
from avatar.cli import main

PACK = '''
[venue]
name = "Hier-Museum"
kind = "museum"

[[fact]]
id = "cafe"
topic = "services"
de = "Das Café ist im Erdgeschoss neben der Kasse."
en = "The café is on the ground floor next to the ticket desk."
'''


def test_relative_knowledge_pack_is_found_in_the_current_folder(tmp_path, monkeypatch, capsys):
    (tmp_path / "venue").mkdir()
    (tmp_path / "venue" / "venue.toml").write_text(PACK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["--set", "answer.kind=retrieval", "--set", "answer.min_score=0", "ask", "Where is the café?", "--lang", "en",
                 "--knowledge", "venue", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "ground floor" in out["reply"]


def test_relative_model_config_and_knowledge_options_become_absolute_against_the_cwd(tmp_path, monkeypatch):
    import avatar.commands.ask as ask

    (tmp_path / "kiosk.toml").write_text("[answer]\ntop_k = 5\n", encoding="utf-8")
    seen = {}
    monkeypatch.setattr(ask, "run", lambda args, cfg: seen.update(args=args, cfg=cfg) or 0)
    monkeypatch.chdir(tmp_path)
    assert main(["--config", "kiosk.toml", "ask", "hi", "--model", "my-model", "--knowledge", "packs/x"]) == 0
    args = seen["args"]
    assert args.model == str(tmp_path / "my-model")
    assert args.knowledge == str(tmp_path / "packs" / "x")
    assert args.config == str(tmp_path / "kiosk.toml") and seen["cfg"].answer.top_k == 5


def test_settings_file_paths_still_resolve_against_the_project_root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert paths.resolve("assets/venues/sample") == paths.ROOT / "assets" / "venues" / "sample"
