"""Self-consistency: two decodes agree on content; a third decides by majority vote."""
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.consistency import compare, vote


def cand(text, variant=0):
    return Candidate(text, "de", "info", variant=variant)


def test_same_content_in_other_spellings_agrees():
    a = cand("Wir haben bis 18 Uhr geöffnet.")
    b = cand("Wir haben bis 18:00 geöffnet.")
    assert compare(a, b, "de").agree


def test_different_time_disagrees():
    agreement = compare(cand("Wir haben bis 18 Uhr geöffnet."), cand("Wir haben bis 17 Uhr geöffnet."), "de")
    assert not agreement.agree and not agreement.same_items


def test_vote_picks_the_majority():
    pool = [cand("Wir haben bis 17 Uhr geöffnet.", 0), cand("Wir haben bis 18 Uhr geöffnet.", 1),
            cand("Geöffnet ist bis 18:00 Uhr.", 2)]
    result = vote(pool, "de")
    assert result.majority and result.winner == 1 and result.votes == [0, 1, 1]


def test_vote_without_majority_says_so():
    pool = [cand("Bis 16 Uhr.", 0), cand("Bis 17 Uhr.", 1), cand("Bis 18 Uhr.", 2)]
    assert not vote(pool, "de").majority
