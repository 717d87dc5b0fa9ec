"""Checked answers: grounding, self-consistency and schema checks within the turn's budget (issue 5).

The answerer decodes candidates (`Candidate`) and calls `check_and_choose`, which decides what is
said: a checked candidate, or the fallback (a fact quoted verbatim, or a pointer to staff).
"""
from avatar.answer.checks.bans import banned_token_ids
from avatar.answer.checks.candidate import Candidate
from avatar.answer.checks.checker import (NO_DECLINE, CheckedAnswer, DecodeFn, check_and_choose, make_predictor,
                                          shared_predictor)
from avatar.answer.checks.grounding import GroundingResult, check_grounding, warmup
from avatar.answer.checks.policy import CostPredictor, TurnBudget

__all__ = ["NO_DECLINE", "banned_token_ids", "Candidate", "CheckedAnswer", "DecodeFn", "check_and_choose", "make_predictor", "shared_predictor",
           "GroundingResult", "check_grounding", "warmup", "CostPredictor", "TurnBudget"]
