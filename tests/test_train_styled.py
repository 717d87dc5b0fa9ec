"""Styled venues (issue 11): operators' writing styles, extractive replies, declines for what is not there."""
import re

from avatar_dev.train import corpus, styled


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.lower()).strip(" .")


def test_same_seed_same_examples_and_held_out_venues_apart():
    a = corpus.take(styled.styled_examples(3), 60)
    assert a == corpus.take(styled.styled_examples(3), 60)
    held = corpus.take(styled.styled_examples(3, held_out=True), 60)
    names = lambda exs: {f for e in exs for f in e.facts}
    assert len(names(a) & names(held)) <= 0.1 * len(names(a))  # short generic facts may coincide, venues do not


def test_an_answer_is_a_clause_copied_from_a_prompt_fact():
    for ex in corpus.take(styled.styled_examples(5), 800):
        if ex.kind == "decline":
            assert ex.mood == "sorry" and ex.reply in corpus.DECLINE[ex.lang]
            continue
        text = re.sub(r"^(Ja|Nein|Yes|No)\. ", "", ex.reply)
        # the clause as written (first letter capitalised, a full stop added)
        assert any(_norm(text) in _norm(f) for f in ex.facts), (ex.question, ex.reply, ex.facts)
        assert ex.mood == "info"


def test_yes_no_questions_get_ja_or_nein_and_every_kind_occurs():
    exs = corpus.take(styled.styled_examples(7), 2000)
    assert {e.kind for e in exs} == {"fact", "followup", "decline"}
    assert {e.lang for e in exs} == {"de", "en"}
    leads = {e.reply.split(" ", 1)[0] for e in exs}
    assert {"Ja.", "Nein.", "Yes.", "No."} <= leads
    assert all(e.history for e in exs if e.kind == "followup")


def test_operators_styles_all_occur():
    facts = " | ".join(f for e in corpus.take(styled.styled_examples(9), 3000) for f in e.facts)
    for sign in (";", " – ", ": ", "Liebe Gäste", "Dear guests", "€", "Uhr", "(", "Gebühr"):
        assert sign in facts, sign


def test_the_training_mix_takes_the_styled_share():
    mixed = corpus.take(corpus.examples(1, styled_share=0.5), 400)
    plain = corpus.take(corpus.examples(1), 400)
    styled_facts = sum(any(w in " ".join(e.facts) for w in ("Gebühr", "Fee, ", "befinde", "You will find")) for e in mixed)
    assert styled_facts > 40 and plain != mixed
