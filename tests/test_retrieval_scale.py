"""A pack of 5,000 facts: the index is built once and a question still finds the right fact, by
exact words, by compound parts and by misheard spellings (looked up, not scanned; the time per
question is measured by `python -m avatar.answer.retrieval --synthetic 5000 ...`, not asserted)."""
from datetime import date

import pytest

from avatar.answer.retrieval import index as retrieval_index
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval import Retriever
from avatar.answer.retrieval.index import _compound_parts, _inexact_matches
from avatar.answer.synthetic_pack import write_synthetic_pack
from test_retrieval_answerer import ENGLISH, GERMAN, TUESDAY

N = 5000


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    folder, made = write_synthetic_pack(tmp_path_factory.mktemp("pack5000"), N)
    pack = load_pack(folder)
    assert len(pack.entries) == N
    r = Retriever(pack)
    for lang in ("de", "en"):
        r.retrieve("", lang, today=TUESDAY)  # built here, once
    return r, {f.id: f for f in made}


def _built_again(r: Retriever, monkeypatch) -> list[str]:
    calls = []
    build = r._build
    monkeypatch.setattr(r, "_build", lambda lang, day: calls.append(lang) or build(lang, day))
    return calls


def test_the_sample_questions_still_find_their_facts_among_5000(big, monkeypatch):
    r, _ = big
    calls = _built_again(r, monkeypatch)
    for questions, lang in ((GERMAN, "de"), (ENGLISH, "en")):
        for question, fact_id in questions:
            facts = r.retrieve(question, lang, 3, today=TUESDAY)
            assert facts and facts[0].id == fact_id, (question, [(f.id, f.score) for f in facts])
    assert calls == []  # the index is not rebuilt per question


def test_generated_facts_are_found_by_name_compound_and_misspelling(big):
    r, made = big
    rooms = [f for f in made.values() if f.topic == "rooms"]
    towers = [f for f in made.values() if f.topic == "directions"]
    for fact in rooms[::97]:
        assert r.retrieve(f"wo ist die sammlung {fact.name.lower()}", "de", 3, today=TUESDAY)[0].id == fact.id
        assert r.retrieve(f"where is the {fact.name.lower()} collection", "en", 3, today=TUESDAY)[0].id == fact.id
    for fact in towers[::97]:
        name = fact.name.lower()
        # a compound the pack never spells: "<name>turmzimmer" holds the pack's "<name>turm"
        assert r.retrieve(f"wie komme ich ins {name}turmzimmer", "de", 3, today=TUESDAY)[0].id == fact.id
        # misheard: one letter of the name changed (trigram neighbours)
        i = len(name) // 2
        wrong = name[:i] + ("x" if name[i] != "x" else "y") + name[i + 1:]
        assert r.retrieve(f"wie komme ich zum {wrong}turm", "de", 3, today=TUESDAY)[0].id == fact.id


def test_inexact_matching_uses_the_index_not_a_scan_of_the_vocabulary(big, monkeypatch):
    r, _ = big
    index = r._indexes["de"]

    class NoScan(dict):
        def __iter__(self):
            raise AssertionError("the vocabulary was scanned")

        def items(self):
            raise AssertionError("the vocabulary was scanned")

    monkeypatch.setattr(index, "postings", NoScan(index.postings))
    monkeypatch.setattr(index, "trigrams", NoScan(index.trigrams))
    assert _inexact_matches("garderobenschrank", index)[0][0] == "garderob"
    assert _inexact_matches("toilettn", index)  # trigram neighbours of "toilett"
    assert set(_compound_parts("museumscafe", {"museum", "cafe", "muse", "xcafe"})) == {"museum", "cafe", "muse"}


def test_a_new_day_rebuilds_without_stemming_the_pack_again(big, monkeypatch):
    r, _ = big
    pack_texts = {e.de for e in r.pack.entries}
    stemmed = []
    analyze = retrieval_index.analyze
    monkeypatch.setattr(retrieval_index, "analyze", lambda text, lang: stemmed.append(text) or analyze(text, lang))
    # only the pack's own texts stay known: an earlier test in the run may have seen that Wednesday's hours
    # (the suite run on a real Wednesday), and then they would not be analyzed again here
    monkeypatch.setattr(retrieval_index, "_PACK_TERMS",
                        {k: v for k, v in retrieval_index._PACK_TERMS.items() if k[1] in pack_texts})
    facts = r.retrieve("habt ihr heute offen", "de", 3, today=date(2026, 12, 2))
    assert facts[0].id == "hours-today" and "Mittwoch" in facts[0].text
    assert facts[0].text in stemmed  # today's hours are new text ...
    assert not pack_texts & set(stemmed)  # ... the 5,000 facts' terms are kept from the first build


def test_a_renewed_retriever_does_not_stem_the_pack_again(big, monkeypatch):
    r, made = big
    pack_texts = {e.de for e in r.pack.entries}
    stemmed = []
    analyze = retrieval_index.analyze
    monkeypatch.setattr(retrieval_index, "analyze", lambda text, lang: stemmed.append(text) or analyze(text, lang))
    fresh = Retriever(r.pack)  # what the watchdog's renewed answerer builds
    fact = made["gen-00000"]
    assert fresh.retrieve(f"wo ist die sammlung {fact.name.lower()}", "de", 3, today=TUESDAY)[0].id == fact.id
    assert not pack_texts & set(stemmed)


def test_prepare_builds_the_index_at_load(big):
    r, _ = big
    fresh = Retriever(r.pack)
    fresh.prepare(("de", "en"), today=TUESDAY)
    assert set(fresh._indexes) == {"de", "en"} and all(len(i.facts) == N + 2 for i in fresh._indexes.values())
