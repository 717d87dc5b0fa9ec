"""Retrieval finds a fact in the visitor's words (loo -> WC) and reads a follow-up with the question before."""
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval import Retriever
from avatar.answer.thesaurus import siblings

PACK = """
[venue]
name = "Tierpark Testhausen"
kind = "zoo"

[[fact]]
id = "wc"
topic = "services"
de = "WC: am Haupteingang und im Giraffenhaus."
en = "Toilets: at the main entrance and in the giraffe house."

[[fact]]
id = "baby"
topic = "services"
de = "Wickeltische gibt es im Familienraum."
en = "Changing tables are in the family room."

[[fact]]
id = "lockers"
topic = "services"
de = "Schließfächer am Eingang, 1 € Pfand."
en = "Lockers at the entrance, 1 € deposit."

[[fact]]
id = "sauna"
topic = "services"
de = "Die Tropenhalle ist im Winter bis 16 Uhr offen."
en = "The tropical hall is open until 4 pm in winter."

[[fact]]
id = "tour"
topic = "events"
de = "Führungen: Sa + So 11 Uhr ab Haupteingang."
en = "Guided tours: Sat + Sun 11 am from the main entrance."

[[fact]]
id = "tour-price"
topic = "prices"
de = "Eine Führung kostet 5 € pro Person."
en = "A guided tour costs 5 € per person."
"""


def _retriever(tmp_path):
    (tmp_path / "venue.toml").write_text(PACK, encoding="utf-8")
    return Retriever(load_pack(tmp_path))


def test_visitors_words_find_the_operators_fact(tmp_path):
    r = _retriever(tmp_path)
    assert r.retrieve("where's the loo", "en", 1)[0].id == "wc"
    assert r.retrieve("wo kann ich die windel wechseln", "de", 1)[0].id == "baby"
    assert r.retrieve("where can i leave my backpack", "en", 1)[0].id == "lockers"
    assert "wc" in siblings("loo") and "toilet" in siblings("klo") and not siblings("giraffe")


def test_a_follow_up_is_read_with_the_previous_question(tmp_path):
    r = _retriever(tmp_path)
    alone = r.retrieve("und was kostet das", "de", 1)
    with_context = r.retrieve("und was kostet das", "de", 1, context="wann gibt es führungen")
    assert with_context[0].id == "tour-price"
    assert not alone or alone[0].id in ("tour-price", "lockers")
