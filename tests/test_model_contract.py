"""The kiosk words a pack's opening hours as the model learned them: one module
(avatar/model_contract.py) for the training corpus and the answerer, so the two cannot drift apart."""
from datetime import date, timedelta
from pathlib import Path

from avatar.answer.diffusion_answerer import weekday_fact
from avatar.answer.knowledge import WEEKDAYS, KnowledgePack
from avatar_dev.train import corpus


def test_pack_hours_are_worded_as_the_training_venues_hours():
    venue = corpus.Venue(42)
    hours = {day: (() if h is None else ((h[0]["de"], h[1]["de"]),)) for day, h in zip(WEEKDAYS, venue.hours)}
    hours_en = {day: (() if h is None else ((h[0]["en"], h[1]["en"]),)) for day, h in zip(WEEKDAYS, venue.hours)}
    monday = date(2026, 11, 30)
    for lang, table in (("de", hours), ("en", hours_en)):
        pack = KnowledgePack(name="X", kind="museum", path=Path("."), entries=[], hours=table)
        learned = {i.key: i.fact[lang] for i in venue.items if i.topic == "hours"}
        week = next(i.fact[lang] for i in venue.items if i.topic == "hours_week")
        for d in range(7):
            assert weekday_fact(pack, d, lang).text == learned[f"day{d}"]
            facts = {f.id: f.text for f in pack.facts(lang, monday + timedelta(days=d))}
            assert facts["hours-today"] == venue.today_item(d).fact[lang]
            assert facts["hours-week"] == week


def test_the_declines_the_model_learned_are_the_contracts():
    from avatar import model_contract

    assert corpus.DECLINE is model_contract.DECLINE and corpus.DAYS is model_contract.DAYS


def test_a_learned_decline_sentence_is_a_decline_under_any_mood():
    from avatar.model_contract import DECLINE, is_decline

    for lang, phrases in DECLINE.items():
        for phrase in phrases:
            assert is_decline(phrase, "info") and is_decline(phrase, "neutral"), phrase
    assert is_decline("Anything at all.", "sorry")
    assert not is_decline("Das weiß ich: die Garderobe ist im Untergeschoss.", "info")
    assert not is_decline("The cloakroom is in the basement.", "neutral")
