"""Special days in a knowledge pack ([dates]): holidays and closures the kiosk must get right."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from avatar import config
from avatar.answer.diffusion_answerer import weekday_fact
from avatar.answer.knowledge import KnowledgeError, load_pack
from avatar.answer.retrieval import Retriever

SAMPLE = Path(__file__).resolve().parents[1] / "assets" / "venues" / "sample" / "venue.toml"
DATES = '''
[dates]
"12-24" = { hours = "10:00-14:00", de = "Heiligabend", en = "Christmas Eve" }
"12-25" = "closed"
"2026-12-31" = "10:00-16:00"
'''
CHRISTMAS = date(2026, 12, 25)  # a Friday; the sample museum opens on Fridays


def pack_with(tmp_path, extra: str):
    (tmp_path / "venue.toml").write_text(SAMPLE.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return load_pack(tmp_path)


def facts_by_id(pack, lang, today):
    return {f.id: f.text for f in pack.facts(lang, today)}


def test_on_a_holiday_today_is_that_days_hours_in_the_sentence_the_model_learned(tmp_path):
    pack = pack_with(tmp_path, DATES)
    assert pack.hours_on(date(2026, 12, 18)) != ()  # an ordinary Friday: open
    assert facts_by_id(pack, "de", CHRISTMAS)["hours-today"] == "Heute, am Freitag, haben wir geschlossen."
    assert facts_by_id(pack, "en", date(2026, 12, 24))["hours-today"] == \
        "Today, Thursday, we are open from 10:00 to 14:00."
    assert "16:00" in facts_by_id(pack, "de", date(2026, 12, 31))["hours-today"]
    assert "16:00" not in facts_by_id(pack, "de", date(2027, 12, 31))["hours-today"]  # that year only


def test_the_coming_two_weeks_special_days_are_a_fact_of_their_own(tmp_path):
    pack = pack_with(tmp_path, DATES)
    de = facts_by_id(pack, "de", date(2026, 12, 20))["hours-special"]
    assert de.startswith("Abweichende Öffnungszeiten: Heiligabend, Donnerstag, den 24. Dezember: von 10:00 bis 14:00 Uhr")
    assert "Freitag, den 25. Dezember: geschlossen" in de and "31. Dezember" in de
    en = facts_by_id(pack, "en", date(2026, 12, 20))["hours-special"]
    assert "Christmas Eve, Thursday 24 December: open from 10:00 to 14:00" in en
    assert "hours-special" not in facts_by_id(pack, "de", date(2026, 11, 30))  # nothing special ahead
    assert "christmas" in pack.keywords("hours-special", "en")


def test_a_visitor_asking_for_christmas_finds_the_special_days(tmp_path):
    pack = pack_with(tmp_path, DATES)
    retriever = Retriever(pack)
    top = retriever.retrieve("Habt ihr an Weihnachten offen?", "de", 3, today=date(2026, 12, 20))
    assert top[0].id == "hours-special"
    top = retriever.retrieve("are you open on christmas eve", "en", 3, today=date(2026, 12, 20))
    assert top[0].id == "hours-special"


def test_a_weekday_asked_about_is_the_coming_one(tmp_path):
    pack = pack_with(tmp_path, DATES)
    friday = 4
    assert weekday_fact(pack, friday, "de", today=date(2026, 12, 21)).text == "Am Freitag haben wir geschlossen."
    assert "geöffnet" in weekday_fact(pack, friday, "de", today=date(2026, 12, 26)).text  # the Friday after


def test_a_pack_without_dates_is_unchanged():
    pack = load_pack(SAMPLE)
    assert pack.dates == {}
    assert [f.id for f in pack.facts("de", CHRISTMAS) if f.id.startswith("hours-")] == ["hours-today", "hours-week"]


@pytest.mark.parametrize("extra, named", [
    ('[dates]\n"25.12." = "closed"\n', "is not a date"),
    ('[dates]\n"02-30" = "closed"\n', "no such day"),
    ('[dates]\n"12-25" = "zu"\n', "cannot read"),
    ('[dates]\n"12-25" = "14:00-10:00"\n', "opens after it closes"),
    ('[dates]\n"12-25" = { de = "Weihnachten" }\n', "field 'hours'"),
    ('[dates]\n"12-25" = { hours = "closed", fr = "Noël" }\n', "unknown field"),
    ('[dates]\n"12-25" = 5\n', "must be text"),
])
def test_a_broken_date_is_named(tmp_path, extra, named):
    with pytest.raises(KnowledgeError, match=named) as err:
        pack_with(tmp_path, extra)
    assert "[dates]" in err.value.message


def test_leap_day_every_year_is_a_date(tmp_path):
    pack = pack_with(tmp_path, '[dates]\n"02-29" = "closed"\n')
    assert pack.hours_on(date(2028, 2, 29)) == ()


def test_dates_need_hours(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8")
    start = text.index("[hours]")
    end = text.index("\n\n", start)
    (tmp_path / "venue.toml").write_text(text[:start] + text[end:] + '[dates]\n"12-25" = "closed"\n', encoding="utf-8")
    with pytest.raises(KnowledgeError, match="needs \\[hours\\]"):
        load_pack(tmp_path)


def test_the_kiosks_answer_on_christmas_day_says_closed(tmp_path, monkeypatch):
    from avatar.answer.retrieval_answerer import RetrievalAnswerer

    pack = pack_with(tmp_path, DATES)
    cfg = config.load(sets=["answer.semantic_weight=0"], env={})
    answerer = RetrievalAnswerer(pack, cfg)
    real = answerer.retriever.match
    monkeypatch.setattr(answerer.retriever, "match",
                        lambda q, lang, k=3, today=None, context="": real(q, lang, k, CHRISTMAS, context))
    reply = answerer.answer("Haben Sie heute geöffnet?", "de").reply
    assert reply == "Heute, am Freitag, haben wir geschlossen."
