"""Scoring of `avatar eval` on crafted replies (no model needed)."""
from avatar.answer.prompt import ReplyRecord
from avatar_dev.train import corpus
from avatar_dev.train.evaluate import score, summarise, unsupported_content


def ex(kind="fact", values=("10:00", "18:00"), lang="de"):
    return corpus.Example(lang, ["Am Montag haben wir von 10:00 bis 18:00 Uhr geöffnet."], "Wann habt ihr am Montag offen?",
                          "", "info", kind, values=list(values))


def test_a_number_not_in_the_facts_is_unsupported():
    assert unsupported_content("Am Montag von 10:00 bis 19:00 Uhr.", "Am Montag von 10:00 bis 18:00 Uhr.") == ["19"]
    assert unsupported_content("Der Zug nach Hamburg fährt.", "Der Zug nach Berlin fährt.") == ["Hamburg"]
    assert unsupported_content("Am Montag von 10:00 bis 18:00 Uhr.", "Am Montag von 10:00 bis 18:00 Uhr.") == []


def test_right_fact_needs_every_value():
    good = score(ex(), ReplyRecord("de", "info", "Am Montag haben wir von 10:00 bis 18:00 Uhr geöffnet.", True), 5, 3, 12)
    half = score(ex(), ReplyRecord("de", "info", "Am Montag haben wir ab 10:00 Uhr geöffnet.", True), 5, 3, 12)
    assert good.right and not half.right and good.reply_lang == "de"


def test_decline_counts_only_with_the_sorry_mood_and_words():
    yes = score(ex("decline", ()), ReplyRecord("de", "sorry", "Das weiß ich leider nicht. Bitte fragen Sie unser Personal.", True), 5, 3, 12)
    no = score(ex("decline", ()), ReplyRecord("de", "info", "Am Montag haben wir geöffnet.", True), 5, 3, 12)
    assert yes.declined and not no.declined


def test_reply_in_the_other_language_is_counted_as_wrong_language():
    row = score(ex(lang="de"), ReplyRecord("en", "info", "On Monday we are open from 10:00 to 18:00.", True), 5, 3, 12)
    report = summarise("threshold", [row])
    assert report.in_language == 0.0  # the values are right; the language is scored on its own


def test_answer_time_percentiles_are_the_shared_numpy_ones():
    rows = []
    for ms in (10.0, 20.0, 30.0, 40.0):
        row = score(ex(), ReplyRecord("de", "info", "Am Montag haben wir von 10:00 bis 18:00 Uhr geöffnet.", True), ms, 3, 12)
        rows.append(row)
    report = summarise("threshold", rows)
    assert report.median_ms == 25.0
    assert report.p95_ms == 38.5  # numpy's linear interpolation (avatar.stats), not the nearest rank (40)
