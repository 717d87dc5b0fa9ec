"""One simulated turn of the echo bench, closed loop: the reply plays over a simulated loudspeaker,
its echo and the visitor's speech reach the microphone, and the voice loop's barge-in rule decides
frame by frame whether the reply pauses, resumes or stops."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from avatar import events as ev
from avatar_dev.bench.echo_audio import NOISE_DB, _noise
from avatar_dev.bench.room import delay_jumps, echo_of, level_dbfs, speech_bounds
from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.pipeline.barge_in import PAUSE, RESUME, STOP, BargeIn, BargeInRule, rule_from_config
from avatar.vad.backchannel import backchannel_rule


class SimulatedLoudspeaker:
    """The reply playing into the room: what it plays is the canceller's reference, its echo is in the mic."""

    def __init__(self, reply: np.ndarray, at: int, n: int, h: np.ndarray, jumps: np.ndarray | None = None):
        self.reply, self.h, self.n, self.jumps = reply.astype(np.float64), h, n, jumps
        self.played = np.zeros(n)
        self.echo = np.zeros(n)
        self.pos = 0  # reply samples played before the current segment
        self._play_from(at)

    def playing(self, k: int) -> bool:
        return self.start <= k < self.until

    @property
    def finished(self) -> bool:
        return self.pos + (self.until - self.start) >= self.reply.size

    def stop(self, k: int) -> None:
        """Silent from sample k on (what the device already holds still plays up to k)."""
        if self.start <= k < self.until:
            self.echo[k:] -= echo_of(self.played[k:self.until], self.h, k, self.n - k, self.jumps)
            self.played[k:self.until] = 0.0
            self.until = k

    def resume(self, k: int) -> None:
        if not self.playing(k) and not self.finished and k < self.n:
            self.pos += self.until - self.start
            self._play_from(k)

    def _play_from(self, k: int) -> None:
        seg = self.reply[self.pos:][: self.n - k]
        self.played[k:k + seg.size] = seg
        self.echo[k:] += echo_of(seg, self.h, k, self.n - k, self.jumps)
        self.start, self.until = k, k + seg.size


POLICIES = ("loop", "stop", "pause")


def policy_rule(cfg, policy: str, frame_ms: float) -> BargeInRule:
    """The barge-in rule (avatar/pipeline/barge_in.py) a policy names; all three are the voice loop's
    rule object, with other settings:
    - "loop": as the settings give it (pause at a voice onset, stop for an interruption, resume
      after a backchannel or a false onset);
    - "stop": the rule for a sink that cannot pause: stop once the speech is long enough and not a
      backchannel;
    - "pause": silence where the endpointer opens speech (vad.speech_start_ms of speech at
      vad.silero_threshold), resume after a backchannel."""
    if policy not in POLICIES:
        raise AvatarError(f"unknown barge-in policy {policy!r}", hint=f"one of {', '.join(POLICIES)}")
    rule = rule_from_config(cfg, can_pause=policy != "stop")
    if policy == "pause":
        return replace(rule, onset_ms=max(frame_ms, float(cfg.vad.speech_start_ms)),
                       threshold=float(cfg.vad.silero_threshold))
    return rule


def simulate_turn(cfg, index, kind, text, reply, clip, at_s, ser_db, h, noise, aec, endpointer,
                  frame_n, clock, partials, rng, policy: str = "loop", asr=None, jitter_ms: float = 0.0,
                  jitter_seed: int = 0) -> dict:
    """One turn, closed loop: the reply plays from 0.3 s until it ends or the visitor stops it; the
    voice loop's barge-in rule (`policy_rule`) decides frame by frame. `jitter_ms`: the echo's delay
    jumps by up to this much (`Room.jitter_ms`, drawn from `jitter_seed`)."""
    turn = _ClosedLoopTurn(cfg, kind, text, reply, clip, at_s, ser_db, h, noise, aec, endpointer, frame_n, clock,
                           partials, rng, policy, asr, jitter_ms, jitter_seed)
    for k in range(0, turn.n, frame_n):
        turn.frame(k)
    return turn.result(index)


class _ClosedLoopTurn:
    """The state of one simulated turn: the loudspeaker, the visitor's speech, what the endpointer
    and the partial transcripts heard so far, and what the barge-in rule did."""

    def __init__(self, cfg, kind, text, reply, clip, at_s, ser_db, h, noise, aec, endpointer, frame_n, clock,
                 partials, rng, policy, asr, jitter_ms=0.0, jitter_seed=0):
        self.cfg, self.kind, self.text, self.clip, self.ser_db = cfg, kind, text, clip, ser_db
        self.aec, self.endpointer, self.frame_n, self.clock = aec, endpointer, frame_n, clock
        self.partials, self.asr = partials, asr
        reply_at = int(0.3 * SAMPLE_RATE)
        n = reply_at + reply.size + int(1.2 * SAMPLE_RATE)
        self.n = n = n - n % frame_n
        self.speaker = SimulatedLoudspeaker(reply, reply_at, n, h, delay_jumps(jitter_ms, n, jitter_seed))
        self.near = np.zeros(n)
        self.first_word: float | None = None
        # the visitor relative to the echo
        self.level_db = level_dbfs(self.speaker.echo[reply_at:reply_at + reply.size]) + ser_db
        if clip is not None:
            k = int(round((0.3 + at_s) * SAMPLE_RATE))
            scaled = clip.astype(np.float64) * 10 ** ((self.level_db - level_dbfs(clip)) / 20)
            self.near[k:k + scaled.size] = scaled[: max(0, n - k)]
            self.first_word = float(k / SAMPLE_RATE + speech_bounds(clip)[0])
        self.background = _noise(noise, n, NOISE_DB, rng)
        self.latency_n = int(round(float(cfg.audio.output_latency_ms) * SAMPLE_RATE / 1000))
        self.min_ms = float(cfg.pipeline.barge_in_min_ms)
        self.rule = BargeIn(policy_rule(cfg, policy, frame_n * 1000 / SAMPLE_RATE), backchannel_rule(self.min_ms))
        self.silent_at: int | None = None  # first sample of the silence that ended the reply (a pause that resumed does not)
        self.echo_pauses = 0               # onset pauses before the visitor said anything, resumed
        self.taken = False                 # the visitor took the turn: the reply is over
        self.paused = False
        self.pause_n = 0
        self.gaps_ms: list[float] = []
        self.utt_start: float | None = None
        self.during_reply = False
        self.voiced = 0.0
        self.speech_starts = self.echo_starts = 0
        self.clipped = False
        self.heard: str | None = None  # partials "asr": what the recogniser made of the speech so far
        self.heard_at = 0.0
        self.asr_ms: list[float] = []

    def frame(self, k: int) -> None:
        """One frame: the microphone through the canceller and the endpointer, then the rule."""
        frame_end = (k + self.frame_n) / SAMPLE_RATE
        ended = self._listen(k, self._microphone(k), frame_end)
        # oracle: the words the visitor has begun to say, as if the ASR were instant ("" before that)
        partial = self.text if self.partials == "oracle" and self.first_word is not None \
            and frame_end >= self.first_word else ""
        now_n = min(k + self.frame_n + self.latency_n, self.n)  # the device still plays what it already holds
        if self.partials == "asr":
            now_n = self._transcribe(ended, now_n)
            partial = self.heard or ""
        if bool(self.cfg.pipeline.barge_in) and not self.taken and (self.speaker.playing(k) or self.paused):
            self._decide(now_n, ended, partial)
        if ended:
            self.utt_start, self.voiced = None, 0.0

    def _microphone(self, k: int) -> AudioFrame:
        """The frame the canceller returns for the microphone at sample k (echo, visitor, room tone)."""
        speaker, frame_n, t = self.speaker, self.frame_n, self.clock + k / SAMPLE_RATE
        if speaker.playing(k):  # the sink plays this block now: the canceller's reference
            block = speaker.played[k:min(k + frame_n, speaker.until)].astype(np.int16)
            self.aec.add_reference(block, t)
        raw = np.round(speaker.echo[k:k + frame_n] + self.near[k:k + frame_n] + self.background[k:k + frame_n])
        self.clipped = self.clipped or bool(np.abs(raw).max() > 32767)  # a clipped mic breaks the echo path model
        mic = np.clip(raw, -32768, 32767).astype(np.int16)
        return self.aec.process(AudioFrame(mic, t, t))

    def _listen(self, k: int, frame: AudioFrame, frame_end: float) -> bool:
        """The endpointer's events for the frame; whether the utterance ended with it."""
        ended = False
        for event in self.endpointer.process(frame):
            if isinstance(event, ev.SpeechStart):
                self.speech_starts += 1
                t_turn = event.audio_t - self.clock
                if self.first_word is None or t_turn < self.first_word - 0.05:
                    self.echo_starts += 1
                self.utt_start = t_turn
                self.during_reply = self.speaker.playing(k) or self.paused
                self.heard, self.heard_at = None, 0.0
            elif isinstance(event, ev.Resumed) and self.utt_start is None and (self.speaker.playing(k) or self.paused):
                self.utt_start, self.during_reply = event.audio_t - self.clock, True  # the visitor went on after a pause
            elif isinstance(event, (ev.TentativeEnd, ev.EndOfTurn)) and self.utt_start is not None:
                ended = True
        if self.utt_start is not None and not getattr(self.endpointer, "in_speech", True):
            ended = True  # a burst too short for a turn (cough, click) ended without an event
        if self.utt_start is not None and not ended:
            # speech actually heard, not time since its start: a cough must not add up to a barge-in
            self.voiced = getattr(self.endpointer, "voiced_ms", (frame_end - self.utt_start) * 1000)
        return ended

    def _transcribe(self, ended: bool, now_n: int) -> int:
        """Partials "asr": transcribe the speech so far when the rule will ask (every 300 ms of
        speech); the decision waits for it, so the reply falls silent that much later."""
        if self.utt_start is not None and self.during_reply and not self.taken and not ended \
                and self.voiced >= self.min_ms and (self.heard is None or self.voiced - self.heard_at >= 300.0):
            tr = self.asr.transcribe(self.endpointer.utterance(), partial=True)  # the decision waits for it
            self.heard, self.heard_at = tr.text, self.voiced
            self.asr_ms.append(tr.ms)
            now_n = min(now_n + int(tr.ms * SAMPLE_RATE / 1000), self.n)
        return now_n

    def _decide(self, now_n: int, ended: bool, partial: str) -> None:
        """The voice loop's own rule object: pause at the onset, stop / resume as it decides."""
        open_utt = self.utt_start is not None and self.during_reply and not ended
        words = None if self.partials != "oracle" and self.heard is None else partial  # None: no transcript (yet)
        probability = self.aec.near_end(float(getattr(self.endpointer, "probability", 0.0)))  # as the voice loop does
        action = self.rule.frame(self.frame_n * 1000 / SAMPLE_RATE, probability,
                                 open_utt, self.voiced if open_utt else 0.0, words)
        if ended and self.utt_start is not None and self.during_reply:
            action = self.rule.utterance_ended(self.voiced, words) or action
        if action == PAUSE:
            self.speaker.stop(now_n)
            self.paused, self.pause_n = True, now_n
            self.silent_at = now_n if self.silent_at is None else self.silent_at
        elif action == RESUME and self.paused:
            self._resume(now_n)
            self.paused, self.silent_at = False, None  # it plays again: a later silence is what ends it
        elif action == STOP:
            self.speaker.stop(now_n)
            self.taken = True
            self.silent_at = now_n if self.silent_at is None else self.silent_at

    def _resume(self, now_n: int) -> None:
        """The paused reply plays again; a pause before the visitor's first word was its own echo."""
        self.speaker.resume(now_n)
        self.gaps_ms.append((now_n - self.pause_n) * 1000 / SAMPLE_RATE)
        if self.first_word is None or self.pause_n / SAMPLE_RATE < self.first_word:
            self.echo_pauses += 1  # nobody had spoken: the reply stuttered on its own echo

    def result(self, index: int) -> dict:
        """The turn as a TurnResult's fields (tools/avatar_dev/bench/echo.py), plus its duration_s."""
        first_word, silent_at, heard_clip = self.first_word, self.silent_at, self.clip is not None
        stop_ms = None if silent_at is None or first_word is None else (silent_at / SAMPLE_RATE - first_word) * 1000
        return dict(index=index, kind=self.kind, text=self.text, first_word_s=first_word,
                    level_db=round(self.level_db, 1) if heard_clip else None,
                    ser_db=round(self.ser_db, 1) if heard_clip else None,
                    speech_starts=self.speech_starts, echo_speech_starts=self.echo_starts, stopped=self.taken,
                    stop_before_visitor=bool(silent_at is not None
                                             and (first_word is None or silent_at / SAMPLE_RATE < first_word)),
                    stop_ms=None if stop_ms is None or stop_ms < 0 else round(stop_ms, 1),
                    resumed_after_ms=[round(g, 1) for g in self.gaps_ms], own_echo_pauses=self.echo_pauses,
                    mic_clipped=self.clipped, heard=self.heard if self.partials == "asr" else None,
                    asr_ms=[round(m, 1) for m in self.asr_ms], duration_s=self.n / SAMPLE_RATE)
