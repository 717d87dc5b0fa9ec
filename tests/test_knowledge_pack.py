"""Knowledge packs: the sample venue loads; every mistake names the file, the fact and the field."""
from datetime import date
from pathlib import Path

import pytest

from avatar.answer.knowledge import TOPICS, KnowledgeError, load_pack
from avatar.paths import ROOT

SAMPLE = ROOT / "assets" / "venues" / "sample"

GOOD_FACT = '''
[[fact]]
id = "cafe"
topic = "services"
de = "Das Café ist im Erdgeschoss."
en = "The café is on the ground floor."
'''
VENUE = '''
[venue]
name = "Testmuseum"
kind = "museum"
'''


def write_pack(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "venue"
    folder.mkdir(exist_ok=True)
    (folder / "venue.toml").write_text(text, encoding="utf-8")
    return folder


def test_sample_pack_is_a_bilingual_museum_with_30_to_50_facts():
    pack = load_pack(SAMPLE)
    assert pack.kind == "museum"
    assert 30 <= len(pack.entries) <= 50
    assert {e.topic for e in pack.entries} == set(TOPICS)
    de, en = pack.facts("de"), pack.facts("en")
    assert [f.id for f in de] == [f.id for f in en]
    assert all(f.lang == "de" for f in de) and all(f.lang == "en" for f in en)


def test_hours_render_today_from_the_weekday_table():
    pack = load_pack(SAMPLE)
    monday, thursday = date(2026, 11, 30), date(2026, 12, 3)
    today = {f.id: f.text for f in pack.facts("de", monday)}["hours-today"]
    assert "Montag" in today and "geschlossen" in today
    today = {f.id: f.text for f in pack.facts("en", thursday)}["hours-today"]
    assert "Thursday" in today and "10:00" in today and "21:00" in today
    week = {f.id: f.text for f in pack.facts("en", thursday)}["hours-week"]
    assert "Monday closed" in week and "Tuesday and Wednesday from 10:00 to 18:00" in week
    assert pack.hours_on(monday) == ()


@pytest.mark.parametrize("fact, where", [
    ('[[fact]]\nid = "wifi"\ntopic = "services"\nde = "WLAN gibt es."\n', "fact 'wifi' (#2) field 'en'"),
    ('[[fact]]\nid = "wifi"\ntopic = "wlan"\nde = "a"\nen = "b"\n', "fact 'wifi' (#2) field 'topic'"),
    ('[[fact]]\nid = "cafe"\ntopic = "services"\nde = "a"\nen = "b"\n', "fact 'cafe' (#2) field 'id'"),
    ('[[fact]]\nid = "Wi Fi"\ntopic = "services"\nde = "a"\nen = "b"\n', "field 'id'"),
    ('[[fact]]\nid = "wifi"\ntopic = "services"\nde = "a"\nen = "b"\neng = "c"\n', "fact 'wifi' (#2) field 'eng'"),
    ('[[fact]]\nid = "wifi"\ntopic = "services"\nde = ""\nen = "b"\n', "fact 'wifi' (#2) field 'de'"),
    ('[[fact]]\nid = "wifi"\ntopic = "services"\nde = "a"\nen = "b"\nkeywords = 3\n', "field 'keywords'"),
])
def test_fact_errors_name_the_file_the_fact_and_the_field(tmp_path, fact, where):
    folder = write_pack(tmp_path, VENUE + GOOD_FACT + fact)
    with pytest.raises(KnowledgeError) as err:
        load_pack(folder)
    assert str(folder / "venue.toml") in err.value.message
    assert where in err.value.message
    assert err.value.hint


@pytest.mark.parametrize("text, where", [
    (GOOD_FACT, "[venue]"),
    ('[venue]\nname = "X"\n' + GOOD_FACT, "[venue] field 'kind'"),
    (VENUE, "[[fact]]"),
    (VENUE + GOOD_FACT + '[hours]\nmon = "closed"\n', "[hours] field 'tue'"),
    (VENUE + GOOD_FACT + '[hours]\nmon = "9-17"\ntue = "closed"\nwed = "closed"\nthu = "closed"\n'
     'fri = "closed"\nsat = "closed"\nsun = "closed"\n', "[hours] field 'mon'"),
    (VENUE + GOOD_FACT + '[opening]\nmon = "closed"\n', "'opening'"),
    (VENUE + 'name_en = 5\n' + GOOD_FACT, "[venue] field 'name_en'"),
])
def test_venue_and_hours_errors_name_the_field(tmp_path, text, where):
    with pytest.raises(KnowledgeError) as err:
        load_pack(write_pack(tmp_path, text))
    assert where in err.value.message


def test_broken_toml_and_missing_pack_are_clear_errors(tmp_path):
    with pytest.raises(KnowledgeError, match="not valid TOML"):
        load_pack(write_pack(tmp_path, '[venue]\nname = "X\n'))
    with pytest.raises(KnowledgeError, match="not found"):
        load_pack(tmp_path / "nowhere")


def test_split_hours_and_a_pack_file_path_are_accepted(tmp_path):
    folder = write_pack(tmp_path, VENUE + GOOD_FACT + '[hours]\nmon = "geschlossen"\ntue = "9:00-12:00, 14:00-18:00"\n'
                        'wed = "10:00-18:00"\nthu = "10:00-18:00"\nfri = "10:00-18:00"\nsat = "closed"\nsun = "closed"\n')
    pack = load_pack(folder / "venue.toml")
    assert pack.hours["tue"] == (("09:00", "12:00"), ("14:00", "18:00"))
    tuesday = {f.id: f.text for f in pack.facts("de", date(2026, 12, 1))}["hours-today"]
    assert tuesday == "Heute, am Dienstag, haben wir von 09:00 bis 12:00 Uhr und 14:00 bis 18:00 Uhr geöffnet."


def _week(mon: str) -> str:
    return (VENUE + GOOD_FACT + f'[hours]\nmon = "{mon}"\ntue = "closed"\nwed = "closed"\nthu = "closed"\n'
            'fri = "closed"\nsat = "closed"\nsun = "10:00-18:00"\n')


@pytest.mark.parametrize("mon, problem", [
    ("24:59-24:59", "not a time of day"),
    ("10:00-24:30", "not a time of day"),
    ("18:00-10:00", "opens after it closes"),
    ("10:00-10:00", "opens after it closes"),
    ("14:00-18:00, 10:00-13:00", "overlaps or comes before"),
    ("10:00-14:00, 13:00-18:00", "overlaps or comes before"),
    ("10:60-12:00", "cannot read"),
])
def test_impossible_hours_are_refused_naming_the_day(tmp_path, mon, problem):
    with pytest.raises(KnowledgeError) as err:
        load_pack(write_pack(tmp_path, _week(mon)))
    assert "[hours] field 'mon'" in err.value.message and problem in err.value.message
    assert err.value.hint


def test_hours_until_midnight_are_accepted(tmp_path):
    pack = load_pack(write_pack(tmp_path, _week("00:00-02:00, 18:00-24:00")))
    assert pack.hours["mon"] == (("00:00", "02:00"), ("18:00", "24:00"))


def test_a_pack_saved_with_a_byte_order_mark_loads(tmp_path):
    folder = tmp_path / "venue"
    folder.mkdir()
    (folder / "venue.toml").write_bytes(b"\xef\xbb\xbf" + (SAMPLE / "venue.toml").read_bytes())  # Windows Notepad
    assert load_pack(folder).entries == load_pack(SAMPLE).entries


@pytest.mark.parametrize("field, value", [("id", "42"), ("topic", "3"), ("de", "5"), ("en", "true")])
def test_a_fact_field_of_the_wrong_type_says_it_must_be_text_in_quotes(tmp_path, field, value):
    fact = GOOD_FACT.replace(next(line for line in GOOD_FACT.splitlines() if line.startswith(f"{field} =")),
                             f"{field} = {value}")
    with pytest.raises(KnowledgeError) as err:
        load_pack(write_pack(tmp_path, VENUE + fact))
    assert f"field '{field}': must be text in quotes" in err.value.message


def test_a_venue_name_of_the_wrong_type_says_it_must_be_text_in_quotes(tmp_path):
    with pytest.raises(KnowledgeError, match="field 'name': must be text in quotes"):
        load_pack(write_pack(tmp_path, VENUE.replace('"Testmuseum"', "1999") + GOOD_FACT))


def test_a_pack_file_that_is_a_folder_is_a_named_error(tmp_path, capsys):
    from avatar import cli

    folder = tmp_path / "venue"
    (folder / "venue.toml").mkdir(parents=True)
    with pytest.raises(KnowledgeError, match="venue.toml: is a folder, not a file"):
        load_pack(folder)
    assert cli.main(["check-pack", "--knowledge", str(folder)]) == 2  # a named error, not an internal one
    err = capsys.readouterr().err
    assert "is a folder" in err and "internal error" not in err


def test_a_pack_file_with_an_io_error_is_a_named_error(tmp_path):
    folder = tmp_path / "venue"
    folder.mkdir()
    (folder / "venue.toml").symlink_to("/proc/self/mem")  # reading it from the start fails with EIO
    with pytest.raises(KnowledgeError, match="venue.toml: cannot be read: Input/output error"):
        load_pack(folder)


@pytest.mark.skipif(hasattr(__import__("os"), "geteuid") and __import__("os").geteuid() == 0,
                    reason="root reads any file")
def test_an_unreadable_pack_file_is_a_named_error(tmp_path):
    folder = write_pack(tmp_path, VENUE + GOOD_FACT)
    (folder / "venue.toml").chmod(0)
    with pytest.raises(KnowledgeError, match="permission denied") as err:
        load_pack(folder)
    assert "chmod a+r" in err.value.hint


def test_a_pack_knows_its_version_from_its_save_time_and_content(tmp_path):
    import os

    folder = write_pack(tmp_path, VENUE + GOOD_FACT)
    os.utime(folder / "venue.toml", (1_800_000_000, 1_800_000_000))
    first = load_pack(folder).version
    assert first.startswith("saved 20") and "sha256 " in first
    (folder / "venue.toml").write_text(VENUE + GOOD_FACT.replace("Erdgeschoss", "Keller"), encoding="utf-8")
    os.utime(folder / "venue.toml", (1_800_000_000, 1_800_000_000))  # the same time, other content
    assert load_pack(folder).version != first and load_pack(folder).version[:25] == first[:25]
