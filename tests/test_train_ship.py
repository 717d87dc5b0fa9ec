"""Shipping a model folder: files copied, manifest entry with sha256, licence and command, idempotent."""
import tomllib

from avatar.train.ship import FILES, sha256, ship


def test_ship_writes_one_manifest_entry_and_keeps_the_others(tmp_path):
    src = tmp_path / "run"
    src.mkdir()
    for name in FILES:
        (src / name).write_text(name)
    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.toml").write_text('[whisper-base]\nkind = "asr"\n[whisper-base.files]\n"a" = "b"\n')
    ship(src, "avatar train --minutes 1", models)
    ship(src, "avatar train --minutes 2", models)
    data = tomllib.loads((models / "manifest.toml").read_text())
    assert set(data) == {"whisper-base", "avatar-mdlm"}
    entry = data["avatar-mdlm"]
    assert entry["licence"] == "GPL-3.0-or-later" and entry["training_command"] == "avatar train --minutes 2"
    assert entry["files"] == {name: sha256(models / "avatar-mdlm" / name) for name in FILES}
