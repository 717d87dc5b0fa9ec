from avatar import config
from avatar.commands import doctor


def test_doctor_reports_every_part_and_never_crashes(tmp_path):
    cfg = config.load(sets=[f"llm.model={tmp_path / 'no-model'}"], env={})
    checks = {c.name: c for c in doctor.collect(cfg)}
    assert {"display", "speech recognition", "voice (en)", "voice (de)", "knowledge pack", "language model"} <= set(checks)
    assert checks["language model"].status == "fallback" and "retrieval" in checks["language model"].detail
    assert checks["knowledge pack"].status == "ok"


def test_doctor_names_a_broken_knowledge_pack(tmp_path):
    (tmp_path / "venue.toml").write_text("[venue]\nname = 'x'\n[[fact]]\nid = 'a'\n")
    cfg = config.load(sets=[f"general.knowledge={tmp_path}"], env={})
    check = next(c for c in doctor.collect(cfg) if c.name == "knowledge pack")
    assert check.status == "missing" and "venue.toml" in check.detail


def test_doctor_says_whether_an_admin_pin_is_set(tmp_path):
    from avatar.ui.pin import write_pin_file

    cfg = config.load(sets=[f"kiosk.admin_pin_file={tmp_path / 'admin-pin'}"], env={})
    check = next(c for c in doctor.collect(cfg) if c.name == "admin PIN")
    assert check.status == "missing" and "avatar admin set-pin" in check.hint
    write_pin_file(tmp_path / "admin-pin", "5831")
    check = next(c for c in doctor.collect(cfg) if c.name == "admin PIN")
    assert check.status == "ok" and str(tmp_path) in check.detail
