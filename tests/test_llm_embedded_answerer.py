"""The diffusion answerer around the embedded model (a tiny untrained one: the plumbing, not the quality)."""
import pytest

from avatar import config
from avatar.answer import load_knowledge
from avatar.answer.base import CheckReport
from avatar.answer.diffusion_answerer import DiffusionAnswerer, asked_weekday
from avatar.trace import Tracer
from avatar_dev.train.trainer import TrainOptions, train


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    train(TrainOptions(out=out, steps=2, batch=4, size="tiny", vocab_size=600, tokenizer_examples=300))
    return out / "model"


def answerer(model_dir, checks=True):
    cfg = config.load(None, [f"llm.model={model_dir}", "llm.threads=1", f"checks.enabled={str(checks).lower()}",
                             "llm.gen_length=24", "llm.max_ms=0"])  # no time limit: plumbing, on any box
    return DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer())


def test_answer_keeps_the_question_language_and_reports_the_decode(model_dir):
    a = answerer(model_dir, checks=False)
    ans = a.answer("Was kostet der Eintritt?", "de")
    assert ans.lang == "de" and ans.source == "diffusion"
    assert ans.decode.steps >= 1 and ans.decode.tokens >= 1 and ans.decode.ms > 0
    assert ans.facts and ans.checks.to_dict() == {"enabled": False}
    assert ans.mood in ("neutral", "happy", "sorry", "info")


def test_checked_answer_says_a_checked_reply_or_the_fallback(model_dir):
    ans = answerer(model_dir, checks=True).answer("How much is admission?", "en")
    assert ans.lang == "en" and ans.source in ("diffusion", "fallback") and ans.reply
    assert ans.checks.enabled is not False


def test_candidate_never_holds_a_banned_token(model_dir):
    a = answerer(model_dir, checks=False)
    facts = a.retrieve("Was kostet der Eintritt?", "de")
    first = a.decode_candidate("Was kostet der Eintritt?", "de", facts, variant=0)
    banned = set(first.token_ids[:3])
    again = a.decode_candidate("Was kostet der Eintritt?", "de", facts, variant=0, banned_token_ids=banned)
    assert first.lang == again.lang == "de"
    assert not banned & set(again.token_ids)
    other = a.decode_candidate("Was kostet der Eintritt?", "de", facts, variant=2)
    assert other.variant == 2 and other.decode_info["variant"] == 2


def test_a_named_weekday_brings_its_opening_hours_into_the_prompt(model_dir):
    a = answerer(model_dir, checks=False)
    facts = a.retrieve("und am sonntag", "de")
    assert facts[0].id == "hours-sun" and facts[0].text.startswith("Am Sonntag haben wir")
    assert asked_weekday("are you open on mondays") == (0, "en")
    assert asked_weekday("wo ist das café") is None


def test_warmup_decodes_once_per_language_without_error(model_dir):
    answerer(model_dir, checks=True).warmup()


def _scripted_checks(monkeypatch, reply, mood, fallback_used):
    from avatar.answer import checks
    from avatar.answer.checks.checker import CheckedAnswer

    def fake(question, lang, facts, decode, cfg, **kw):
        return CheckedAnswer(reply, lang, mood, "", CheckReport(enabled=True), fallback_used, None, [kw["first"]])
    monkeypatch.setattr(checks, "check_and_choose", fake)


def test_a_rejected_reply_is_replaced_by_what_the_retrieval_answerer_says(model_dir, monkeypatch):
    _scripted_checks(monkeypatch, "quoted clause", "info", fallback_used=True)
    a = answerer(model_dir)
    ans = a.answer("Wo ist die Garderobe?", "de")
    assert ans.source == "fallback" and ans.reply == a.skills.answer("Wo ist die Garderobe?", "de").reply
    assert "Untergeschoss" in ans.reply and ans.checks.retrieval_backed


def test_a_decline_stands_only_where_retrieval_declines_too(model_dir, monkeypatch):
    _scripted_checks(monkeypatch, "Das weiß ich leider nicht.", "sorry", fallback_used=False)
    cfg = config.load(None, [f"llm.model={model_dir}", "llm.threads=1", "llm.gen_length=24",
                             "checks.decline_follows=retrieval"])
    a = DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer())
    answered = a.answer("Wo ist die Garderobe?", "de")  # the pack says it: retrieval answers
    assert answered.source == "fallback" and "Untergeschoss" in answered.reply
    kept = a.answer("Wie wird das Wetter morgen?", "de")  # the pack does not: both decline
    assert kept.reply == "Das weiß ich leider nicht." and kept.source == "diffusion"
    # the default since 2026-12-01 is the same; with "model" the model's decline stands
    assert answerer(model_dir).answer("Wo ist die Garderobe?", "de").source == "fallback"
    cfg = config.load(None, [f"llm.model={model_dir}", "llm.threads=1", "llm.gen_length=24",
                             "checks.decline_follows=model"])
    assert DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer()).answer("Wo ist die Garderobe?", "de").reply \
        == "Das weiß ich leider nicht."


def test_a_learned_decline_under_another_mood_also_follows_retrieval(model_dir, monkeypatch):
    # the model wrote its decline sentence as an "info" reply: still a decline, so retrieval decides
    _scripted_checks(monkeypatch, "Das weiß ich leider nicht. Bitte fragen Sie unser Personal.", "info",
                     fallback_used=False)
    cfg = config.load(None, [f"llm.model={model_dir}", "llm.threads=1", "llm.gen_length=24",
                             "checks.decline_follows=retrieval"])
    answered = DiffusionAnswerer(cfg, load_knowledge(cfg), Tracer()).answer("Wo ist die Garderobe?", "de")
    assert answered.source == "fallback" and "Untergeschoss" in answered.reply


def test_a_weekday_with_another_subject_keeps_that_subjects_fact(model_dir):
    a = answerer(model_dir, checks=False)
    # the sample venue's café has hours of its own: a named weekday must not put the museum's first
    facts = a.retrieve("wann hat das café am sonntag offen", "de")
    assert facts and facts[0].id != "hours-sun", [f.id for f in facts]


def test_an_edited_pack_is_read_at_the_next_answer_and_its_fallback_follows(model_dir, tmp_path):
    from avatar.answer.knowledge import load_pack

    a = answerer(model_dir)
    old = "Der Eintritt kostet 9 € für Erwachsene."
    from avatar.paths import resolve

    sample = resolve(config.load(None).general.knowledge) / "venue.toml"
    (tmp_path / "venue.toml").write_text(sample.read_text(encoding="utf-8").replace(
        old, "Der Eintritt kostet 12 € für Erwachsene."), encoding="utf-8")
    edited = load_pack(tmp_path)
    a.use_pack(edited)
    assert a.pack is edited and a.skills.pack is edited
    facts = a.retrieve("Was kostet der Eintritt für Erwachsene?", "de")
    assert "12 €" in facts[0].text
    reply = a.answer("Was kostet der Eintritt für Erwachsene?", "de").reply
    assert "9 €" not in reply  # whatever it says, never the price the operator took out


def test_a_decode_past_its_time_limit_is_replaced_by_what_retrieval_says(model_dir, monkeypatch):
    """llm.max_ms: the reply would come too late; the visitor hears the retrieval answer, the record says why,
    and warm-up (which pays torch's set-up) is not stopped by it."""
    from avatar.llm import engine

    a = answerer(model_dir, checks=True)
    a.options = __import__("dataclasses").replace(a.options, max_ms=1.0)
    real_now = engine.now
    clock = {"t": 0.0}

    def slow_now():  # every step seems to take 10 ms
        clock["t"] += 0.01
        return clock["t"]

    monkeypatch.setattr(engine, "now", slow_now)
    a.warmup()  # no DecodeOverBudget escapes
    ans = a.answer("How much is admission?", "en")
    monkeypatch.setattr(engine, "now", real_now)
    said = a.skills.answer("How much is admission?", "en")
    assert ans.source == "fallback" and ans.reply == said.reply
    assert ans.checks.fallback == "retrieval:decode_over_budget" and ans.checks.fallback_used
    assert ans.facts and ans.decode.answer_ms is not None


def test_a_best_fact_unlike_the_training_is_said_by_retrieval_without_a_decode(model_dir, monkeypatch):
    """llm.min_familiarity: a fact whose word pairs the model never saw gets no decode (the checks would
    replace its reply); a familiar one, or the gate at 0, is decoded as before."""
    from avatar.answer.checks import lexicon

    a = answerer(model_dir, checks=True)
    question = "How much is admission?"
    best = a.retrieve(question, "en")[0]
    decodes = []
    real_infill = a.lm.infill
    monkeypatch.setattr(a.lm, "infill", lambda *args, **kw: decodes.append(1) or real_infill(*args, **kw))

    monkeypatch.setattr(lexicon, "corpus_pairs", lambda: frozenset({("nothing", "known")}))
    assert a.familiarity([best]) == 0.0 and a.familiarity([]) is None
    ans = a.answer(question, "en")
    assert decodes == [] and ans.source == "fallback"
    assert ans.reply == a.skills.answer(question, "en").reply
    assert ans.checks.fallback == "retrieval:unfamiliar" and ans.checks.fallback_used and ans.decode.ms == 0

    monkeypatch.setattr(lexicon, "corpus_pairs", lambda: frozenset(lexicon.word_pairs(best.text)))
    assert a.familiarity([best]) == 1.0
    a.answer(question, "en")
    assert decodes, "a familiar fact is decoded"

    decodes.clear()
    monkeypatch.setattr(lexicon, "corpus_pairs", lambda: frozenset({("nothing", "known")}))
    a.cfg = config.load(None, [f"llm.model={model_dir}", "llm.max_ms=0", "llm.min_familiarity=0"])
    a.answer(question, "en")
    assert decodes, "the gate at 0 decodes every question"


def test_without_the_models_tables_familiarity_is_unknown_and_every_question_is_decoded(monkeypatch):
    from avatar.answer.checks import lexicon

    monkeypatch.setattr(lexicon, "corpus_pairs", lambda: frozenset())
    assert lexicon.familiarity("Der Eintritt kostet 9 €.") is None
