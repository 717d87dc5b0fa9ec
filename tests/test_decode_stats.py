"""DecodeStats: the typed decode record from the answerer to the HUD (issue 14 item 5)."""
import pytest

from avatar import events as ev
from avatar.answer.base import Answer, DecodeStats


def test_a_decode_dict_read_from_json_becomes_the_record_and_every_carrier_keeps_it():
    old = {"forward_passes": 8, "tokens": 44, "ms": 30.0, "something_else": 1}  # an older trace's record
    stats = DecodeStats.of(old)
    assert stats == DecodeStats(steps=8, tokens=44, ms=30.0) and stats.tokens_per_pass == pytest.approx(5.5)
    for carrier in (Answer("hi", "en", decode=stats), ev.ReplyDone(0.0, decode=stats), ev.TurnMetrics(0.0, decode=stats)):
        assert carrier.decode is stats


def test_retrieval_ran_no_model_and_json_leaves_out_what_was_not_measured():
    stats = DecodeStats(ms=2.5)
    assert stats.tokens_per_pass is None and stats.answer_time_ms == 2.5
    assert Answer("hi", "en", decode=stats).to_json()["decode"] == {"steps": 0, "tokens": 0, "ms": 2.5, "decodes": 0,
                                                                    "decode_ms_total": 0.0}
    assert DecodeStats(ms=2.5, answer_ms=9.0).answer_time_ms == 9.0
