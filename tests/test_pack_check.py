"""`avatar check-pack`: numbers that differ between a fact's two languages, and the measured advice."""
from __future__ import annotations

from pathlib import Path

import pytest

from avatar import cli
from avatar.answer.knowledge import load_pack
from avatar.answer.pack_check import check_pack, prices, times

ROOT = Path(__file__).resolve().parents[1]

PACK = """
[venue]
name = "Testbad"
kind = "pool"

[[fact]]
id = "sauna"
topic = "hours"
de = "Sauna: Di–So 14–21 Uhr; Eintritt 9 €."
en = "Sauna: Tue–Sun 2 pm to 9 pm; admission €9."
keywords = ["Sauna"]

[[fact]]
id = "cafe"
topic = "services"
de = "Das Bistro hat von 10 bis 18 Uhr geöffnet, ein Kaffee kostet 2,50 €."
en = "The bistro is open from 10 am to 7 pm, a coffee is 2.80 €."
keywords = ["Bistro", "Kaffee", "coffee"]
"""


@pytest.mark.parametrize("de, en", [
    ("Mo–Sa 9–18 Uhr (Nov–Feb bis 16:30)", "Mon–Sat 9 am–6 pm (Nov–Feb until 4:30 pm)"),
    ("um 11, 13 und 15 Uhr", "at 11 am, 1 pm and 3 pm"),
    ("von 8 bis 18 Uhr", "from 8:00 to 18:00"),
    ("von 8 bis 10 Uhr", "from 8 to 10 am"),
    ("9–12 Uhr", "9 a.m. – 12 noon"),
    ("bis 24 Uhr", "until midnight"),
    ("Seelöwen 11 + 15 Uhr", "sea lions 11 am + 3 pm"),
    ("Nachtruhe 22–7 Uhr, Mittagsruhe 13–15 Uhr", "night quiet 10 pm–7 am, midday quiet 1 pm–3 pm"),  # a rest, no time
    ("unter 18 um 24 Uhr", "under 18s by midnight"),
    ("Vorführungen Di–So 11 / 14 / 16 / 19:30 Uhr", "Shows Tue–Sun 11:00 / 14:00 / 16:00 / 19:30"),  # a sign's hours
    ("Führungen 11 / 14 / 16 Uhr", "tours 11 am / 2 / 4 pm"),
])
def test_the_same_times_written_each_languages_way_agree(de, en):
    assert times(de) == times(en) and times(de)


def test_prices_are_read_however_they_are_written():
    assert prices("4 € / Tag; 3,50 €; 2 EUR") == prices("€4 a day; 3.50 €; 2 euros") == {"4", "3.5", "2"}


def test_a_formal_price_with_the_currency_first_is_read_and_a_paper_size_is_no_price(tmp_path):
    de, en = "Papierkopie DIN A4 0,50 EUR, DIN A3 1,00 EUR", "paper copy A4 EUR 0.50, A3 EUR 1.00"
    assert prices(de) == prices(en) == {"0.5", "1"}
    assert _problems(tmp_path, de, en) == []
    assert _problems(tmp_path, "Kopie 0,50 EUR", "copy EUR 0.60") == ["prices"]  # a real difference still is one


def test_bare_german_hours_before_a_final_uhr_are_read(tmp_path):
    de, en = "Vorführungen Di–So 11 / 14 / 16 / 19:30 Uhr", "Shows Tue–Sun 11:00 / 14:00 / 16:00 / 19:30"
    assert _problems(tmp_path, de, en) == []
    assert _problems(tmp_path, "Vorführungen 11 / 14 / 16 Uhr", "Shows 11:00 / 15:00 / 16:00") == ["times"]


def _problems(folder, de, en):
    """The kinds of problem check-pack reports for a pack of one fact."""
    (folder / "venue.toml").write_text(f'''[venue]
name = "Test"
kind = "museum"

[[fact]]
id = "f"
topic = "prices"
de = "{de}"
en = "{en}"
keywords = ["f"]
''', encoding="utf-8")
    return [kind for f in check_pack(load_pack(folder)) if f.level == "problem"
            for kind in ("times", "prices") if kind in f.message]


def test_a_fact_whose_languages_give_different_times_or_prices_is_a_problem(tmp_path, capsys):
    (tmp_path / "venue.toml").write_text(PACK, encoding="utf-8")
    findings = check_pack(load_pack(tmp_path))
    problems = [f for f in findings if f.level == "problem"]
    assert [(f.fact, "times" in f.message, "prices" in f.message) for f in problems] == \
        [("cafe", True, False), ("cafe", False, True)]
    assert "only the German text says 18" in problems[0].message and "only the English text says 19" in problems[0].message
    assert "2.5" in problems[1].message and "2.8" in problems[1].message
    code = cli.main(["check-pack", "--knowledge", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1 and "problem" in out and "fact 'cafe'" in out


def test_the_shipped_sample_and_the_evaluation_packs_have_no_false_alarm(capsys):
    """Nine packs written by other hands, each consistent in its two languages: no problem reported."""
    packs = [ROOT / "assets" / "venues" / "sample", *sorted(f.parent for f in (ROOT / "evals" / "packs").glob("*/*/venue.toml"))]
    assert len(packs) >= 9
    for folder in packs:
        assert [f for f in check_pack(load_pack(folder)) if f.level == "problem"] == [], folder.name


def test_the_advice_is_what_the_evaluation_measured(tmp_path):
    long_fact = " ".join(["Wort"] * 45)
    text = PACK.replace('keywords = ["Sauna"]\n', "") + f'''
[[fact]]
id = "long"
topic = "about"
de = "{long_fact}."
en = "{' '.join(['word'] * 45)}."
keywords = ["ticket"]
''' + "".join(f'''
[[fact]]
id = "t{i}"
topic = "prices"
de = "Karte {i}."
en = "Ticket {i}."
keywords = ["ticket"]
''' for i in range(3))
    (tmp_path / "venue.toml").write_text(text, encoding="utf-8")
    advice = [f.message for f in check_pack(load_pack(tmp_path)) if f.level == "advice"]
    assert any("have no keywords: sauna" in a for a in advice)
    assert any("are long" in a and "long (45)" in a for a in advice)
    assert any("'ticket' is on 4 facts" in a for a in advice)


def test_json_and_a_broken_pack(tmp_path, capsys):
    import json

    assert cli.main(["check-pack", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pack"] and out["facts"] > 0 and isinstance(out["findings"], list)
    (tmp_path / "venue.toml").write_text("[venue", encoding="utf-8")
    assert cli.main(["check-pack", "--knowledge", str(tmp_path)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_output_cut_short_by_the_reader_is_no_error(monkeypatch, capsys):
    """`avatar check-pack | head -1`: the reader closing the pipe is not an internal error."""
    import sys

    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert cli.main(["check-pack"]) == 0
    assert "internal error" not in capsys.readouterr().err


def _sample_with(tmp_path, old: str, new: str) -> Path:
    text = (ROOT / "assets" / "venues" / "sample" / "venue.toml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "venue.toml").write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path


def test_german_pasted_into_an_english_field_is_a_problem(tmp_path, capsys):
    folder = _sample_with(tmp_path, 'en = "Admission is 9 € for adults.',
                          'en = "Der Eintritt kostet 9 € für Erwachsene und ist am Montag frei.')
    assert cli.main(["check-pack", "--knowledge", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "the 'en' text reads as German" in out and "1 problem(s)" in out


def test_english_pasted_into_a_german_field_is_a_problem(tmp_path):
    folder = _sample_with(tmp_path, 'de = "Der Eintritt kostet 9 € für Erwachsene.',
                          'de = "Admission is 9 € for adults, and it is free for children with their family.')
    problems = [f for f in check_pack(load_pack(folder)) if f.level == "problem"]
    assert [("reads as English" in f.message, "'de'" in f.message) for f in problems] == [(True, True)]


def test_venue_names_and_titles_in_the_other_language_are_no_alarm(tmp_path):
    de = "Programm: 11 Uhr „Journey to the Stars“, danach Führung im Haus, 9–17 Uhr."
    en = "Programme: 11:00 „Reise zum Mars über den Wolken“ (Journey to Mars), Hallenbad am Weidenhof, 9 am–5 pm."
    assert _problems(tmp_path, de, en) == []
    assert [f for f in check_pack(load_pack(tmp_path)) if f.level == "problem"] == []


@pytest.mark.parametrize("pack", sorted(str(p.parent.relative_to(ROOT)) for p in
                                        [*ROOT.glob("assets/venues/*/venue.toml"),
                                         *ROOT.glob("evals/packs/dev*/*/venue.toml")]))
def test_no_fact_of_the_shipped_and_dev_packs_reads_as_the_other_language(pack):
    assert [f.message for f in check_pack(load_pack(ROOT / pack)) if "reads as" in f.message] == []
