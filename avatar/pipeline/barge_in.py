"""What the visitor's voice during a reply does to playback, decided frame by frame.

A person who starts talking over the avatar should hear it fall silent at once, but a "mhm" or a
door must not end the reply. So playback *pauses* at the first voice onset (tens of ms of speech),
*stops* for good once the speech is long enough to be an interruption and not a backchannel, and
*resumes* when the onset was a backchannel or led to nothing. The voice loop and the echo bench
both use this one rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

NONE, PAUSE, RESUME, STOP = "", "pause", "resume", "stop"


@dataclass
class BargeInRule:
    min_ms: float = 240.0  # voiced speech that makes an interruption (shorter: a backchannel)
    onset_ms: float = 60.0  # voiced run that pauses playback (0: never pause, only stop)
    threshold: float = 0.5  # speech probability of a voiced frame (for the onset run)
    false_onset_ms: float = 300.0  # paused this long without an utterance: resume
    words_wait_ms: float = 700.0  # while paused, wait this much more speech for its words before stopping


def rule_from_config(cfg, can_pause: bool = True) -> BargeInRule:
    """The rule as the settings describe it (the voice loop and the echo bench both build it here)."""
    p = cfg.pipeline
    return BargeInRule(min_ms=float(p.barge_in_min_ms), onset_ms=float(p.barge_in_onset_ms) if can_pause else 0.0,
                       threshold=float(getattr(p, "barge_in_onset_prob", cfg.vad.silero_threshold)))


class BargeIn:
    def __init__(self, rule: BargeInRule, backchannel: Callable[[float, str], bool] | None = None):
        self.rule = rule
        # backchannel(voiced_ms, words): words = partial transcript, None when there is none yet
        self.backchannel = backchannel or (lambda ms, words: ms < rule.min_ms)
        self.reset()

    def reset(self) -> None:
        self.paused = False
        self.stopped = False
        self._run_ms = 0.0  # current run of voiced frames
        self._quiet_ms = 0.0  # unvoiced time since the pause with no utterance open
        self.needs_words = False  # the loop should transcribe the utterance now

    def frame(self, frame_ms: float, probability: float, utterance_open: bool, voiced_ms: float,
              partial: str | None = "") -> str:
        """One input frame while a reply is playing (or paused); returns the action to take.

        `partial` is what the recogniser heard of the utterance so far, None while its words are
        still being transcribed: a paused reply is already silent, so the rule can afford to wait
        for them (up to words_wait_ms) instead of taking a long "mhm" for an interruption."""
        if self.stopped:
            return NONE
        voiced = probability >= self.rule.threshold
        self._run_ms = self._run_ms + frame_ms if voiced else 0.0
        self.needs_words = False
        if utterance_open and voiced_ms >= self.rule.min_ms:
            if partial is None and self.paused and voiced_ms < self.rule.min_ms + self.rule.words_wait_ms:
                self.needs_words = True
                return NONE
            if not self.backchannel(voiced_ms, partial):
                self.stopped, self.paused = True, False
                return STOP
        if not self.paused:
            if self.rule.onset_ms > 0 and self._run_ms >= self.rule.onset_ms:
                self.paused, self._quiet_ms = True, 0.0
                return PAUSE
            return NONE
        self._quiet_ms = 0.0 if (voiced or utterance_open) else self._quiet_ms + frame_ms
        if self._quiet_ms >= self.rule.false_onset_ms:  # a door, a cough: nobody took the turn
            self.paused = False
            return RESUME
        return NONE

    def utterance_ended(self, voiced_ms: float, partial: str | None = "") -> str:
        """The visitor's utterance over the reply ended: a backchannel lets the reply go on."""
        if self.stopped:
            return NONE
        if self.backchannel(voiced_ms, partial):
            if self.paused:
                self.paused = False
                return RESUME
            return NONE
        self.stopped, self.paused = True, False
        return STOP
