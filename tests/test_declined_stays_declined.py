"""Issue 40: a question about something the venue does not have ("how much is the ticket to the moon",
"what does the zoo cost") is declined, with no number spoken, by retrieval, by the checks and by the kiosk's
default answer path; the sample pack's own price and hours questions are still answered."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from avatar import cli, config
from avatar.answer.asked import asked_subject
from avatar.answer.base import Fact
from avatar.answer.checks import Candidate, CostPredictor, check_and_choose
from avatar.answer.checks.answers import answering_fact, subject_missing
from avatar.answer.checks.fallback import NOT_KNOWN, fallback_reply
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.trace import Tracer

SAMPLE = Path(__file__).resolve().parents[1] / "assets" / "venues" / "sample"
# the four, and the other topics the sample pack has: hours, place, food
OFF_TOPIC = [("how much is the ticket to the moon", "en"), ("how much is a ticket to mars", "en"),
             ("what does the zoo cost", "en"), ("wie viel kostet ein ticket zum mond", "de"),
             ("when does the zoo open", "en"), ("wann öffnet der zoo", "de"), ("where is the moon", "en"),
             ("wo ist der mond", "de"), ("what can i eat on the moon", "en"), ("is there a café on mars", "en"),
             ("was kann man auf dem mond essen", "de")]
ANSWERABLE = [("how much is a ticket", "en", "9 €"), ("how much is the family ticket", "en", "18 €"),
              ("what does the annual pass cost", "en", "30 €"), ("was kostet der eintritt", "de", "9 €"),
              ("wie viel kostet ein ticket", "de", "9 €"), ("when does the café open", "en", "10:00"),
              ("how late are you open on thursday", "en", "21:00"), ("wann hat das café offen", "de", "17:30"),
              ("wie lange habt ihr am donnerstag offen", "de", "21:00")]
DIGIT = re.compile(r"\d")


@pytest.mark.parametrize("question, lang, subject", [
    ("how much is the ticket to the moon", "en", (("ticket",), ("moon",))),
    ("wie viel kostet ein ticket zum mond", "de", (("ticket",), ("mond",))),
    ("what does the zoo cost", "en", (("zoo",), ())),
    ("wann öffnet der zoo", "de", (("zoo",), ())),
    ("where is the moon", "en", (("moon",), ())),
    ("is there a café on mars", "en", ((), ("mars",))),
    ("was kann man auf dem mond essen", "de", ((), ("mond",))),
    ("how much is the parquet ticket", "en", (("parquet", "ticket"), ())),
    ("how much is electricity per night", "en", (("electricity",), ())),
    ("how much do children under six pay", "en", ((), ())),  # who pays, not what
    ("how much is it to bring a bike", "en", ((), ())),  # "it": the venue's price
    ("wann habt ihr geöffnet", "de", ((), ())),
    ("wie viel kostet es", "de", ((), ())),
])
def test_the_thing_a_question_asks_about_and_the_place_it_is_for(question, lang, subject):
    assert asked_subject(question, lang) == subject


@pytest.fixture(scope="module")
def retrieval():
    cfg = config.load(env={})
    return RetrievalAnswerer(load_pack(SAMPLE), cfg, Tracer())


@pytest.mark.parametrize("question, lang", OFF_TOPIC)
def test_retrieval_declines_what_the_venue_does_not_have(retrieval, question, lang):
    ans = retrieval.answer(question, lang)
    assert ans.mood == "sorry" and not DIGIT.search(ans.reply), ans.reply


@pytest.mark.parametrize("question, lang, value", ANSWERABLE)
def test_retrieval_still_answers_the_venues_own_price_and_hours_questions(retrieval, question, lang, value):
    assert value in retrieval.answer(question, lang).reply


ADMISSION = Fact("price-adult", "en", "Admission is 9 € for adults.", "prices", 2.9)
REDUCED = Fact("price-reduced", "en", "The reduced ticket is 5.50 € for students.", "prices", 1.9)
KEYWORDS = {"price-adult": "ticket admission price museum Stadtmuseum", "price-reduced": "ticket museum Stadtmuseum"}


def _checked(question: str, reply: str, mood: str = "info"):
    calls = []

    def decode(variant, banned):
        calls.append(variant)
        return Candidate(reply, "en", mood, decode_info={"variant": variant})

    cfg = config.load(sets=["checks.max_extra_ratio=0", "checks.self_consistency=false"], env={})
    out = check_and_choose(question, "en", [ADMISSION, REDUCED], decode, cfg, budget_ms=100, tracer=Tracer(),
                           predictor=CostPredictor({"decode": 1.0}), keywords_of=lambda f: KEYWORDS[f.id])
    return out, calls


def test_the_checks_reject_a_price_for_the_moon_and_the_fallback_says_no_price():
    out, calls = _checked("how much is the ticket to the moon", "Admission is 9 € for adults.")
    assert out.fallback_used and out.checks.relevant is False and out.checks.asked == ["moon"]
    assert out.reply == NOT_KNOWN["en"] and not DIGIT.search(out.reply)
    assert calls == [0]  # no re-decode: no fact names the moon, so none could be about it


def test_the_checks_let_the_admission_price_answer_the_admission_question():
    out, _ = _checked("how much is a ticket", "Admission is 9 € for adults.")
    assert out.checks.relevant is True and "9 €" in out.reply


def test_a_decline_of_the_moon_is_not_decoded_again_as_an_answer():
    out, calls = _checked("how much is a ticket to mars", "Sorry, I don't know that. Please ask our staff.", "sorry")
    assert calls == [0] and out.mood == "sorry"
    assert answering_fact("how much is a ticket to mars", "en", [ADMISSION], 0.0, lambda f: KEYWORDS[f.id],
                          0.0) is None


def test_the_clause_fallback_quotes_no_fact_about_something_else():
    assert fallback_reply("what does the zoo cost", "en", [ADMISSION], 0.0, lambda f: KEYWORDS[f.id],
                          sure_score=1.0).kind == "not_known"
    assert fallback_reply("how much is a ticket", "en", [ADMISSION], 0.0, lambda f: KEYWORDS[f.id],
                          sure_score=1.0).fact_id == "price-adult"
    assert subject_missing("how much is the ticket to the moon", "en", [ADMISSION.text, KEYWORDS["price-adult"]]) \
        == ("moon",)


def test_the_kiosks_default_answer_path_declines_them_on_the_command_line(tmp_path, capsys):
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(q for q, _ in OFF_TOPIC[:4]) + "\nhow much is a ticket\nwann hat das café offen\n",
                         encoding="utf-8")
    assert cli.main(["ask", "--questions", str(questions), "--json"]) == 0
    replies = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert len(replies) == 6
    for r in replies[:4]:  # the diffusion answerer (answer.kind's default) with its checks
        assert not DIGIT.search(r["reply"]) and r["checks"]["enabled"], r
    assert "9 €" in replies[4]["reply"] and "17:30" in replies[5]["reply"]


class SaysAdmission:
    """A reader that always reads out the admission fact: the model at its most off topic."""

    class tok:
        eos = 2

        @staticmethod
        def encode(text):
            return [ord(c) for c in text]

    def read(self, facts, question, turns, **_):
        from types import SimpleNamespace

        text = next((f for f in facts if "9 €" in f), "Admission is 9 € for adults.")
        return SimpleNamespace(text=text, ids=[1, 2, 3], steps=2, ms=1.0, fact_ms=0.0, confidence=[0.9, 0.9, 0.9])

    def forget_facts(self):
        pass


def _both_answer_paths(monkeypatch):
    """The default DiffusionAnswerer (the shipped model, its decode made to say the admission fact) and
    the ReaderAnswerer (a reader that says it): the same checks and fallbacks around each."""
    from avatar.answer.diffusion_answerer import DiffusionAnswerer
    from avatar.answer.reader_answerer import ReaderAnswerer

    cfg = config.load(sets=["llm.min_familiarity=0", "llm.max_ms=0"], env={})
    pack = load_pack(SAMPLE)
    diffusion = DiffusionAnswerer(cfg, pack, Tracer())
    admission = {lang: next(f.text for f in pack.facts(lang) if f.id == "price-adult") for lang in ("de", "en")}
    monkeypatch.setattr(diffusion, "decode_candidate", lambda question, lang, *a, **k: Candidate(
        admission[lang], lang, "info", decode_info={"variant": k.get("variant", 0), "steps": 1, "tokens": 3, "ms": 1.0}))
    return {"diffusion": diffusion, "reader": ReaderAnswerer(cfg, pack, Tracer(), reader=SaysAdmission())}


@pytest.mark.parametrize("question, lang", OFF_TOPIC[:4])
def test_both_answer_paths_decline_a_price_the_venue_does_not_have(monkeypatch, question, lang):
    for name, answerer in _both_answer_paths(monkeypatch).items():
        ans = answerer.answer(question, lang)
        assert ans.checks.enabled and ans.checks.fallback_used, name
        assert ans.mood == "sorry" and not DIGIT.search(ans.reply), (name, ans.reply)


def test_both_answer_paths_still_say_the_admission_price_when_it_is_asked(monkeypatch):
    for name, answerer in _both_answer_paths(monkeypatch).items():
        assert "9 €" in answerer.answer("how much is a ticket", "en").reply, name
        assert "9 €" in answerer.answer("was kostet der eintritt", "de").reply, name
