"""The synthetic corpus: seeded, grounded (every value is in a fact), bilingual, held-out venues apart."""
import random

from avatar_dev.train import corpus


def test_same_seed_gives_the_same_examples():
    a = corpus.take(corpus.examples(3), 50)
    b = corpus.take(corpus.examples(3), 50)
    assert a == b
    assert a != corpus.take(corpus.examples(4), 50)


def test_every_value_of_a_reply_is_in_the_prompt_facts():
    for ex in corpus.take(corpus.examples(5), 600):
        for value in ex.values:
            assert any(value.lower() in f.lower() for f in ex.facts), (value, ex)
            assert value.lower() in ex.reply.lower()


def test_both_languages_and_every_kind_occur():
    exs = corpus.take(corpus.examples(6), 800)
    assert {e.lang for e in exs} == {"de", "en"}
    assert {e.kind for e in exs} == {"fact", "followup", "decline", "smalltalk"}
    assert all(e.history for e in exs if e.kind == "followup")
    assert all(e.mood == "sorry" for e in exs if e.kind == "decline")


def test_training_and_held_out_venues_never_share_a_seed():
    train = corpus.take(corpus.examples(0), 200)
    held = corpus.take(corpus.examples(0, held_out=True), 200)
    assert {tuple(e.facts) for e in train}.isdisjoint({tuple(e.facts) for e in held if e.kind == "fact"})


def test_asr_style_has_no_capitals_or_punctuation():
    rng = random.Random(0)
    for _ in range(50):
        q = corpus.asr_style("Wo ist die Garderobe, bitte?", "de", rng)
        assert q == q.lower() and "?" not in q and "," not in q


def test_small_talk_comes_from_both_packages_in_both_languages():
    pairs = corpus.small_talk_pairs()
    assert len(pairs["de"]) > 50 and len(pairs["en"]) > 500
    assert all(len(a.split()) <= 14 for _, a in pairs["en"])


def test_week_hours_group_equal_days():
    o = ({"de": "10:00", "en": "10:00"}, {"de": "18:00", "en": "18:00"})
    text = corpus.week_hours_text([None, o, o, o, o, o, o], "de")
    assert text == "Unsere Öffnungszeiten: Montag geschlossen; Dienstag bis Sonntag von 10:00 bis 18:00 Uhr."


def test_the_decline_share_moves_only_the_training_mix():
    from collections import Counter

    def kinds(**kw):
        stream = corpus.examples(3, **kw)
        return Counter(next(stream).kind for _ in range(3000))

    default, more = kinds(), kinds(decline_share=0.25)
    assert abs(default["decline"] / 3000 - 0.15) < 0.03 and abs(more["decline"] / 3000 - 0.25) < 0.03
    assert abs(more["smalltalk"] - default["smalltalk"]) < 90  # the other kinds keep their shares ...
    assert more["fact"] < default["fact"]  # ... and fact questions give up the difference
    first = [e.question for e in corpus.take(corpus.examples(3), 20)]
    assert first == [e.question for e in corpus.take(corpus.examples(3, decline_share=0.15), 20)]


def test_training_without_the_small_talk_corpora_is_a_clear_error(monkeypatch, capsys):
    """chatterbot-corpus and chitchat-dataset are the `train` extra: `avatar train` names what is
    missing and how to install it, before any work."""
    import importlib.util

    from avatar.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "chitchat_dataset" else real(name, *a))
    assert main(["train", "--steps", "1", "--out", "/nonexistent/run"]) == 2
    err = capsys.readouterr().err
    assert "chitchat-dataset" in err and "chatterbot" not in err and ".[train]" in err
