"""The answerer interface, as the answer stage names it: the types live in the core (avatar/answer_types.py)."""
from avatar.answer_types import Answer, Answerer, CheckReport, DecodeStats, Fact, HistoryTurn

__all__ = ["Answer", "Answerer", "CheckReport", "DecodeStats", "Fact", "HistoryTurn"]
