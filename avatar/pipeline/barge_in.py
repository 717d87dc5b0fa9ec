"""What the visitor's voice during a reply does to playback, decided frame by frame.

A person who starts talking over the avatar should hear it fall silent at once, but a "mhm" or a
door must not end the reply. So playback *pauses* at the first voice onset (tens of ms of speech),
*stops* for good once the speech is long enough to be an interruption and not a backchannel, and
*resumes* when the onset was a backchannel or led to nothing. The voice loop and the echo bench
both use this one rule.

Once the reply is paused, the visitor's speech is measured from the onset to the last voiced frame,
not only by what the endpointer heard: the echo canceller's double-talk suppressor can take the
first words of an interruption spoken over the reply, so the endpointer may hear only its end
("Where are the toilets?" heard as "toilets.": one short word, a backchannel by its length, and
the reply resumed; seen about 1 run in 8 through PulseAudio, tests/test_devices_live.py).
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
                       threshold=p.barge_in_onset_prob)


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
        self._since_pause_ms = 0.0  # time since the onset pause
        self._run_onset_ms = 0.0  # the voiced run that paused the reply
        self._spoken_ms = 0.0  # onset (its voiced run) to the last voiced frame while paused
        self.needs_words = False  # the loop should transcribe the utterance now

    def spoken_ms(self, voiced_ms: float, partial: str | None) -> float:
        """How long the visitor's words took, for judging them: the endpointer's voiced time, or, once
        the reply is paused and the recogniser heard words, the time from the onset to the last
        voiced frame if that is longer. Only with words: without them length alone decides, and an
        onset of the reply's own echo followed by more echo must not add up to an interruption."""
        if self.paused and partial and partial.strip():
            return max(voiced_ms, self._spoken_ms)
        return voiced_ms

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
        if self.paused:
            self._since_pause_ms += frame_ms
            if voiced:
                self._spoken_ms = self._run_onset_ms + self._since_pause_ms
        if utterance_open and voiced_ms >= self.rule.min_ms:
            if partial is None and self.paused and voiced_ms < self.rule.min_ms + self.rule.words_wait_ms:
                self.needs_words = True
                return NONE
            if not self.backchannel(self.spoken_ms(voiced_ms, partial), partial):
                self.stopped, self.paused = True, False
                return STOP
        if not self.paused:
            if self.rule.onset_ms > 0 and self._run_ms >= self.rule.onset_ms:
                self.paused, self._quiet_ms = True, 0.0
                self._run_onset_ms, self._since_pause_ms = self._run_ms, 0.0
                self._spoken_ms = self._run_ms
                return PAUSE
            return NONE
        self._quiet_ms = 0.0 if (voiced or utterance_open) else self._quiet_ms + frame_ms
        if self._quiet_ms >= self.rule.false_onset_ms:  # a door, a cough: nobody took the turn
            self.paused = False
            self._spoken_ms = 0.0
            return RESUME
        return NONE

    def utterance_ended(self, voiced_ms: float, partial: str | None = "") -> str:
        """The visitor's utterance over the reply ended: a backchannel lets the reply go on."""
        if self.stopped:
            return NONE
        if self.backchannel(self.spoken_ms(voiced_ms, partial), partial):
            if self.paused:
                self.paused = False
                self._spoken_ms = 0.0
                return RESUME
            return NONE
        self.stopped, self.paused = True, False
        return STOP
