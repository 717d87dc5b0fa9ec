"""Shipping a model folder: files copied, checks tables written, manifest entry with sha256, licence and
command, idempotent; `--tables-only` rewrites the tables of a shipped folder."""
import tomllib

from avatar_dev.train.ship import FILES, sha256, ship


def test_ship_writes_one_manifest_entry_and_keeps_the_others(tmp_path):
    src = tmp_path / "run"
    src.mkdir()
    for name in FILES:
        (src / name).write_text(name)
    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.toml").write_text('[whisper-base]\nkind = "asr"\n[whisper-base.files]\n"a" = "b"\n')
    ship(src, "avatar train --minutes 1", models, tables=small_tables())
    ship(src, "avatar train --minutes 2", models, tables=small_tables())
    data = tomllib.loads((models / "manifest.toml").read_text())
    assert set(data) == {"whisper-base", "avatar-mdlm"}
    entry = data["avatar-mdlm"]
    assert entry["licence"] == "GPL-3.0-or-later" and entry["training_command"] == "avatar train --minutes 2"
    assert entry["files"] == {name: sha256(models / "avatar-mdlm" / name) for name in (*FILES, "checks_tables.json.gz")}


def small_tables():
    from avatar.model_contract import CheckTables

    return CheckTables(words=frozenset({"wir", "haben", "geöffnet"}), pairs=frozenset({("wir", "haben"), ("#", "uhr")}),
                       decline_words={"de": frozenset({"leider"}), "en": frozenset({"sorry"})},
                       small_talk_nouns={"de": frozenset({"strom"})})


def test_ship_writes_the_checks_tables_and_covers_them_by_the_manifest(tmp_path):
    from avatar.model_contract import CHECKS_TABLES, read_tables

    src = tmp_path / "run"
    src.mkdir()
    for name in FILES:
        (src / name).write_text(name)
    models = tmp_path / "models"
    models.mkdir()
    dest = ship(src, "avatar train --minutes 1", models, tables=small_tables())
    first = (dest / CHECKS_TABLES).read_bytes()
    assert read_tables(dest) == small_tables()
    files = tomllib.loads((models / "manifest.toml").read_text())["avatar-mdlm"]["files"]
    assert files[CHECKS_TABLES] == sha256(dest / CHECKS_TABLES)
    ship(src, "avatar train --minutes 1", models, tables=small_tables())
    assert (dest / CHECKS_TABLES).read_bytes() == first  # same tables, same bytes: the sha256 is stable


def test_tables_only_rewrites_the_tables_and_their_sha256_and_keeps_the_rest(tmp_path):
    from avatar.model_contract import CHECKS_TABLES, CheckTables
    from avatar_dev.train.ship import ship_tables

    src = tmp_path / "run"
    src.mkdir()
    for name in FILES:
        (src / name).write_text(name)
    models = tmp_path / "models"
    models.mkdir()
    (models / "manifest.toml").write_text('[whisper-base]\nkind = "asr"\n[whisper-base.files]\n"a" = "b"\n')
    dest = ship(src, "avatar train --minutes 1", models, tables=small_tables())
    (models / "manifest.toml").write_text((models / "manifest.toml").read_text() + '\n# later\n[other]\nkind = "x"\n')
    before = tomllib.loads((models / "manifest.toml").read_text())
    changed = CheckTables(**{**small_tables().__dict__, "words": frozenset({"neu"})})
    ship_tables(dest, tables=changed)
    after = tomllib.loads((models / "manifest.toml").read_text())
    assert after["avatar-mdlm"]["files"][CHECKS_TABLES] == sha256(dest / CHECKS_TABLES) != before["avatar-mdlm"]["files"][CHECKS_TABLES]
    assert {k: v for k, v in after["avatar-mdlm"].items() if k != "files"} == {k: v for k, v in before["avatar-mdlm"].items() if k != "files"}
    assert after["whisper-base"] == before["whisper-base"] and after["other"] == before["other"]
    assert {k: v for k, v in after["avatar-mdlm"]["files"].items() if k != CHECKS_TABLES} == \
        {k: v for k, v in before["avatar-mdlm"]["files"].items() if k != CHECKS_TABLES}


def test_the_shipped_model_carries_its_checks_tables():
    from avatar.model_contract import CHECKS_TABLES, model_folder, read_tables

    folder = model_folder()
    tables = read_tables(folder)
    assert tables is not None and len(tables.words) > 3000 and len(tables.pairs) > 10000
    assert {"garderobe", "untergeschoss"} <= tables.words and ("die", "garderobe") in tables.pairs
    assert "personal" in tables.decline_words["de"] and "staff" in tables.decline_words["en"]
    manifest = tomllib.loads((folder.parent / "manifest.toml").read_text())
    assert manifest[folder.name]["files"][CHECKS_TABLES] == sha256(folder / CHECKS_TABLES)
