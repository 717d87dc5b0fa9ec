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

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from avatar.aec.echo_canceller import EchoCanceller
from avatar_dev.bench.echo_audio import _clips, reply_audio, reply_voice
from avatar_dev.bench.echo_turn import simulate_turn
from avatar_dev.bench.erle import measure_erle
from avatar_dev.bench.room import ROOMS, impulse_response, room
from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.stats import percentile_ms
from avatar.trace import now

DEFAULT_SER_DB = (0.0, 10.0)  # the visitor's level over the echo, drawn per turn, unless the room has its own
_SER_BANDS = {"below -5 dB": (-99.0, -5.0), "-5..0 dB": (-5.0, 0.0), "0..5 dB": (0.0, 5.0), "5 dB and up": (5.0, 99.0)}


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
                   ser_db: tuple[float, float] | None = None, policy: str = "loop",
                   measure_erle_too: bool = True, replies: str = "recorded") -> dict[str, Any]:
    """Run `n_turns` simulated turns in `room_name` ('all': every room); a JSON-ready report.
    With the recorded replies (the default) the same code, room and seed give the same figures."""
    if room_name == "all":
        rooms = {name: run_echo_bench(cfg, name, n_turns, seed, partials=partials,
                                      echo_cancellation=echo_cancellation, system_delay_ms=system_delay_ms,
                                      ser_db=ser_db, policy=policy, measure_erle_too=measure_erle_too,
                                      replies=replies)
                 for name in ROOMS}
        return {"rooms": {name: {k: v for k, v in r.items() if k != "turns"} for name, r in rooms.items()},
                "turns": {name: r["turns"] for name, r in rooms.items()}}
    if n_turns < 1:
        raise AvatarError("the echo bench needs at least one turn", hint="use --turns 50 or more")
    spec = room(room_name)
    ser_db = tuple(ser_db) if ser_db is not None else spec.ser_db or DEFAULT_SER_DB
    rng = np.random.default_rng(seed)
    replies = reply_audio(cfg, replies)
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
                               aec, endpointer, frame_n, clock, partials, rng, policy, asr,
                               jitter_ms=spec.jitter_ms, jitter_seed=seed * 1000 + i)
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


def _summarize(cfg, room_name, turns, aec, partials, policy, echo_cancellation, system_delay_ms, ser_range, sim_s,
               wall_s) -> dict:
    by_kind = {k: [t for t in turns if t.kind == k] for k in ("silent", "backchannel", "barge_in")}
    real = by_kind["barge_in"]
    detected = [t for t in real if t.stopped and not t.stop_before_visitor]
    stops = sorted(t.stop_ms for t in detected if t.stop_ms is not None)
    spec = room(room_name)
    return {
        "room": room_name,
        "reply_voice": reply_voice(),
        "rt60_s": spec.rt60_s,
        "drr_db": None if spec.rt60_s <= 0 else round(spec.drr_db, 1),
        "jitter_ms": spec.jitter_ms,
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


def _make_asr(cfg):
    from avatar.asr.whisper_asr import WhisperASR

    asr = WhisperASR(cfg.asr, cfg.general.languages)
    asr.warmup()
    return asr


def make_endpointer(cfg):
    from avatar.vad.endpointer import Endpointer

    return Endpointer(cfg.vad)
