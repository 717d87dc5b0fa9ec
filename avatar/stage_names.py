"""The names of a turn's stages: one spelling each, shared by the spans the stages record, the loop's
`TurnMetrics.stages`, the HUD, `avatar report` and the budgets (`[budget]` in avatar/defaults.toml,
whose keys are these names; voice to voice is drawn against `budget.turn`).

A stage emits its span under one of these names; nothing reconciles other spellings. A check's own
time is a span `check_span(name)` ("check.grounding") on the checks track, drawn against the checks
budget and summed into the checks line.
"""
from __future__ import annotations

ENDPOINT = "endpoint"              # last speech sample -> the turn's work starts (the loop's marks)
ASR = "asr"                        # the final transcript (pipeline/turn_runner.py)
RETRIEVAL = "retrieval"            # the facts for the question (answer/*_answerer.py)
DECODE = "decode"                  # the model's first decode of the reply (answer/, llm/)
CHECKS = "checks"                  # the checks of the reply, all of them (each is a check_span)
TTS_FIRST_AUDIO = "tts_first_audio"  # the reply's first clause synthesized
HOLD = "hold"                      # a speculative reply waiting for the confirmed end of turn
OUTPUT = "output"                  # handed to the loudspeaker -> first audible sample
ANSWER = "answer"                  # the answer stage whole, where its own spans do not add up
ANSWER_OTHER = "answer_other"      # the answer stage's time outside its own spans
VOICE_TO_VOICE = "voice_to_voice"  # last speech sample -> first audible reply sample

# The order stages happen in one turn; the HUD, tables and plots list them this way.
STAGE_ORDER = (ENDPOINT, ASR, RETRIEVAL, DECODE, CHECKS, TTS_FIRST_AUDIO, OUTPUT)

CHECK_PREFIX = "check."            # a check's span: "check.grounding", "check.decode" (a re-decode it bought)


def check_span(check: str) -> str:
    """The span name of one check ('grounding' -> 'check.grounding')."""
    return CHECK_PREFIX + check


def is_check(name: str) -> bool:
    """A check's span (a part of the checks stage), not the checks stage itself."""
    return name.startswith(CHECK_PREFIX) and len(name) > len(CHECK_PREFIX)


def check_of(name: str) -> str:
    """The check a check span times ('check.grounding' -> 'grounding')."""
    return name[len(CHECK_PREFIX):]
