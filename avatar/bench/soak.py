"""`avatar soak --turns N`: the whole voice loop for N turns, watching for what grows.

One kiosk (one VoiceLoop, the real models, loaded once) hears a scripted stream of visitors:
recorded questions in both languages with room noise, barge-ins and backchannels over the reply
(real speech mixed over the reply's echo), and bad input (noise alone, silence, a click, clipped
or very quiet speech). The loudspeaker is a timed sink with no device; what it plays comes back
into the microphone through a simulated room's impulse response (avatar/bench/room.py), so the echo
canceller and the double-talk gate work as on a kiosk.

Accelerated time: the visitor's question and the silence after it are fed as fast as the
endpointer takes them (no real-time waits); only while a reply is being prepared or played is
the microphone paced in real time (echo, barge-in and playback need the clock). A reply is
listened to for `listen_s` seconds, then the visitor walks on (playback stopped); every few turns a
visitor leaves for good (the history and the trace's words are wiped).

After every turn it samples resident memory (RSS), threads (the process's, native ones included),
open file descriptors and the spans the tracer holds. The report gives per-turn latency drift
(voice-to-voice p95 of the last tenth against turns 10-30 %), the RSS slope over the second half,
and a verdict per bound; `avatar soak` exits 1 when one is broken.
"""
from __future__ import annotations

import logging
import os
import platform
import threading
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from avatar import events as ev
from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.paths import ROOT, assets_dir
from avatar.stats import percentile_ms
from avatar.trace import now, sleep_until

log = logging.getLogger(__name__)

ECHO_CLIPS = ROOT / "tests" / "data" / "echo"
# the share of each kind of turn (the rest are plain questions)
MIX = {"barge_in": 0.15, "backchannel": 0.10, "bad": 0.15}
BAD_KINDS = ("noise", "silence", "click", "clipped", "quiet")
PHANTOM_KINDS = ("noise", "silence", "click")  # a reply to these is a phantom turn


@dataclass
class Bounds:
    """What the soak must show (issue 13): the defaults are the issue's numbers."""
    rss_growth_pct: float = 5.0        # RSS at the end against RSS after the warm-up tenth
    threads_slack: int = 2             # threads (and fds) above the warm-up level, at most
    fds_slack: int = 4
    latency_drift_pct: float = 10.0    # p95 of the last tenth against turns 10-30 %
    errors: int = 0                    # stage errors, turns that never ended, logged errors
    min_turns_for_drift: int = 20      # fewer turns: drift is reported, not judged
    warmup_turns: int = 200            # memory is compared from here on (at most half the run): caches fill by turns


@dataclass
class TurnPlan:
    index: int
    kind: str            # question | barge_in | backchannel | bad
    clip: str            # file name (or the bad input's kind)
    lang: str
    audio: np.ndarray    # what the visitor says first (int16, noise mixed in)
    overlay: np.ndarray | None = None  # said over the reply (barge-in, backchannel)
    overlay_text: str = ""
    overlay_at_s: float = 0.0          # seconds into the audible reply
    leaves: bool = False               # the visitor leaves after this turn


@dataclass
class TurnRecord:
    index: int
    kind: str
    clip: str
    lang: str
    overlay: str = ""            # what was said over the reply (barge-in, backchannel clip) and when
    overlay_at_s: float = 0.0
    replies: int = 0
    voice_to_voice_ms: float | None = None
    later_v2v_ms: list[float] = field(default_factory=list)  # replies after the first (an interruption's)
    barge_in_stops: int = 0
    pauses: int = 0              # replies paused at a voice onset this turn (then stopped or resumed)
    transcripts: list[str] = field(default_factory=list)
    stage_errors: list[str] = field(default_factory=list)
    timed_out: bool = False
    miss: str = ""               # the turn did not go as a kiosk should (not an error: reported)
    wall_s: float = 0.0
    rss_mb: float = 0.0
    threads: int = 0
    py_threads: int = 0
    fds: int = 0
    spans: int = 0


# --- resources -------------------------------------------------------------------------------
def rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20
    except OSError:  # not Linux: the peak is the best the standard library knows
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def os_threads() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return threading.active_count()


def open_fds() -> int:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return -1


# --- the visitors ------------------------------------------------------------------------------
def question_clips() -> list[tuple[str, Path]]:
    """(lang, file) of every bundled question recording: assets/samples/{venue,real,long}/{de,en}."""
    samples = assets_dir() / "samples"
    out = []
    for path in sorted([*samples.rglob("*.wav"), *samples.rglob("*.flac")]):
        lang = path.parent.name
        if lang in ("de", "en"):
            out.append((lang, path))
    if not out:
        raise AvatarError("no question recordings in assets/samples/", hint="the soak needs the bundled samples")
    return out


def _read(path: Path) -> np.ndarray:
    from avatar.audio.convert import read_wav_16k

    return read_wav_16k(path)


def _level(pcm: np.ndarray) -> float:
    x = pcm.astype(np.float64)
    return float(np.sqrt(np.mean(x ** 2))) if x.size else 0.0


def _mix(speech: np.ndarray, noise: np.ndarray, snr_db: float, rng) -> np.ndarray:
    reps = int(np.ceil(speech.size / max(1, noise.size)))
    start = int(rng.integers(0, max(1, noise.size)))
    bed = np.roll(np.tile(noise, reps), -start)[: speech.size].astype(np.float64)
    gain = _level(speech) / max(1e-9, _level(bed)) * 10 ** (-snr_db / 20)
    return np.clip(speech.astype(np.float64) + gain * bed, -32768, 32767).astype(np.int16)


def plan_turns(n_turns: int, seed: int = 0, visit_turns: int = 6,
               kinds: Sequence[str] | None = None) -> list[TurnPlan]:
    """A reproducible mix of questions (both languages), barge-ins, backchannels and bad input;
    `kinds` fixes the kind of each turn (cycled; a bad input may be named: "bad:noise")."""
    rng = np.random.default_rng(seed)
    questions = [(lang, p, _read(p)) for lang, p in question_clips()]
    noise = _read(ECHO_CLIPS / "background_noise_3s.wav")
    visitors = [(p.stem, _read(p)) for p in sorted(ECHO_CLIPS.glob("visitor_*.wav"))]
    backchannels = [(p.stem, _read(p)) for p in sorted(ECHO_CLIPS.glob("backchannel_*.wav"))]
    langs = ("de", "en")
    plans = []
    for i in range(n_turns):
        r = rng.random()
        kind = ("barge_in" if r < MIX["barge_in"] else
                "backchannel" if r < MIX["barge_in"] + MIX["backchannel"] else
                "bad" if r < sum(MIX.values()) else "question")
        if i < 2:
            kind = "question"  # the first turns warm the loop up with plain questions
        bad = BAD_KINDS[int(rng.integers(len(BAD_KINDS)))]
        if kinds:
            kind, _, named = kinds[i % len(kinds)].partition(":")
            bad = named or bad
            if kind not in (*MIX, "question") or bad not in BAD_KINDS:
                raise AvatarError(f"unknown soak turn kind {kinds[i % len(kinds)]!r}",
                                  hint="question, barge_in, backchannel, bad or bad:" + "|".join(BAD_KINDS))
        lang = langs[i % 2]  # both languages, alternating
        pool = [q for q in questions if q[0] == lang]
        _, path, pcm = pool[int(rng.integers(len(pool)))]
        audio = _mix(pcm, noise, float(rng.uniform(12, 30)), rng)
        plan = TurnPlan(i, kind, path.name, lang, audio, leaves=(i + 1) % visit_turns == 0)
        if kind == "bad":
            plan.clip = bad
            if bad == "noise":
                plan.audio = (noise.astype(np.float64) * 4).clip(-32768, 32767).astype(np.int16)
            elif bad == "silence":
                plan.audio = np.zeros(2 * SAMPLE_RATE, np.int16)
            elif bad == "click":
                plan.audio = np.zeros(SAMPLE_RATE, np.int16)
                plan.audio[SAMPLE_RATE // 2: SAMPLE_RATE // 2 + 400] = (
                    rng.standard_normal(400) * 20000).clip(-32768, 32767).astype(np.int16)
            elif bad == "clipped":
                plan.audio = (pcm.astype(np.float64) * 12).clip(-32768, 32767).astype(np.int16)
            else:  # quiet: 40 dB down
                plan.audio = (pcm.astype(np.float64) / 100).astype(np.int16)
        elif kind in ("barge_in", "backchannel"):
            name, clip = (visitors if kind == "barge_in" else backchannels)[
                int(rng.integers(len(visitors if kind == "barge_in" else backchannels)))]
            plan.overlay, plan.overlay_text = clip, name
            plan.overlay_at_s = float(rng.uniform(0.4, 1.0))
        plans.append(plan)
    return plans


# --- the room: the loudspeaker's sound back into the microphone --------------------------------
class EchoPath:
    """What the sink played (its listener), through a room impulse response, at the clock time a
    microphone frame covers. Played blocks are kept only as long as the response is."""

    def __init__(self, h: np.ndarray):
        self.h = np.asarray(h, np.float64)
        self._blocks: list[tuple[int, np.ndarray]] = []  # (first sample on the clock grid, samples)
        self._lock = threading.Lock()

    def heard(self, block: np.ndarray, t_audible: float) -> None:
        if not np.any(block):
            return
        with self._lock:
            self._blocks.append((int(round(t_audible * SAMPLE_RATE)), np.asarray(block, np.float64)))

    def echo(self, t_end: float, n: int) -> np.ndarray:
        """The echo in the n samples that end at clock time t_end."""
        from avatar.bench.room import convolve

        i1 = int(round(t_end * SAMPLE_RATE))
        i0 = i1 - n - self.h.size + 1
        with self._lock:
            self._blocks = [(s, b) for s, b in self._blocks if s + b.size > i0 - SAMPLE_RATE]
            blocks = [(s, b) for s, b in self._blocks if s < i1 and s + b.size > i0]
        if not blocks:
            return np.zeros(n)
        x = np.zeros(i1 - i0)
        for s, b in blocks:
            lo, hi = max(s, i0), min(s + b.size, i1)
            x[lo - i0:hi - i0] = b[lo - s:hi - s]
        return convolve(x, self.h)[x.size - n:x.size]


class SoakMicrophone:
    """The scripted visitors as a microphone source for the VoiceLoop (see the module docstring)."""

    def __init__(self, plans: Sequence[TurnPlan], echo: EchoPath, frame_ms: int, *, listen_s: float,
                 leave_s: float, turn_timeout_s: float, on_turn: Callable[[TurnPlan, dict], None],
                 noise: np.ndarray | None = None, rng=None):
        self.plans = list(plans)
        self.echo_path = echo
        self.n = SAMPLE_RATE * frame_ms // 1000
        self.listen_s = listen_s
        self.leave_s = leave_s
        self.turn_timeout_s = turn_timeout_s
        self.on_turn = on_turn
        self.noise = noise
        self.rng = rng or np.random.default_rng(0)
        self.loop = None  # set once the loop is built
        self.events: list[ev.Event] = []  # this turn's (cleared when the next one starts)
        self._events_lock = threading.Lock()
        self._closed = threading.Event()
        self._audio_t = 0.0
        self._noise_pos = 0

    def observe(self, event: ev.Event) -> None:
        if isinstance(event, (ev.TurnMetrics, ev.PlaybackStarted, ev.PlaybackStopped, ev.StageError,
                              ev.FinalTranscript, ev.VisitorLeft)):
            with self._events_lock:
                self.events.append(event)

    def _seen(self) -> list[ev.Event]:
        with self._events_lock:
            return list(self.events)

    def close(self) -> None:
        self._closed.set()

    # frames: fast (no waiting) or paced (real time, the loudspeaker's echo mixed in)
    def _frame(self, pcm: np.ndarray, t: float) -> AudioFrame:
        frame = AudioFrame(pcm.astype(np.int16), t, self._audio_t)
        self._audio_t += self.n / SAMPLE_RATE
        return frame

    def _room_tone(self) -> np.ndarray:
        if self.noise is None or not self.noise.size:
            return np.zeros(self.n)
        idx = (self._noise_pos + np.arange(self.n)) % self.noise.size
        self._noise_pos += self.n
        return self.noise[idx].astype(np.float64) * 0.05  # room tone, ~26 dB under the noise clip

    def _fast(self, pcm: np.ndarray) -> Iterator[AudioFrame]:
        pcm = np.concatenate([pcm, np.zeros((-pcm.size) % self.n, np.int16)])
        for k in range(0, pcm.size, self.n):
            if self._closed.is_set():
                return
            t = now()
            mic = pcm[k:k + self.n] + self._room_tone() + self.echo_path.echo(t, self.n)
            yield self._frame(np.clip(np.round(mic), -32768, 32767), t)

    def frames(self) -> Iterator[AudioFrame]:
        silence = lambda s: np.zeros(int(s * SAMPLE_RATE), np.int16)
        for plan in self.plans:
            if self._closed.is_set():
                return
            with self._events_lock:
                self.events.clear()
            start = now()
            yield from self._fast(silence(0.3))
            yield from self._fast(plan.audio)
            yield from self._fast(silence(1.0))  # > the longest end-of-turn wait: the turn is confirmed
            timed_out = yield from self._wait_for_replies(plan)
            if plan.leaves:  # the visitor goes: quiet until the loop forgets them
                yield from self._paced(self.leave_s)
            self.on_turn(plan, {"events": self._seen(), "timed_out": timed_out, "wall_s": now() - start})

    def _paced(self, seconds: float, overlay: np.ndarray | None = None,
               until: Callable[[], bool] | None = None) -> Iterator[AudioFrame]:
        t = now()
        k = 0
        end = t + seconds
        while not self._closed.is_set() and t < end and not (until and until()):
            t += self.n / SAMPLE_RATE
            sleep_until(t)
            mic = self._room_tone() + self.echo_path.echo(t, self.n)
            if overlay is not None and k < overlay.size:
                piece = overlay[k:k + self.n].astype(np.float64)
                mic[:piece.size] += piece
                k += self.n
            yield self._frame(np.clip(np.round(mic), -32768, 32767), t)

    def _wait_for_replies(self, plan: TurnPlan):
        """Paced microphone until the loop is idle; the overlay goes in over the reply. True: timed out."""
        loop = self.loop
        deadline = now() + self.turn_timeout_s
        overlay_done = plan.overlay is None
        idle_since = None
        while not self._closed.is_set():
            if now() > deadline:
                return True
            events = self._seen()
            started = [e for e in events if isinstance(e, ev.PlaybackStarted)]
            busy = loop.busy()
            if not busy:
                idle_since = idle_since or now()
                if now() - idle_since >= 0.3 and (overlay_done or not started):
                    return False
            else:
                idle_since = None
            if started and not overlay_done and loop.sink.playing:
                wait = plan.overlay_at_s - (now() - started[-1].t)
                if wait > 0:
                    yield from self._paced(wait)
                # the visitor speaks over the reply, then is quiet while the loop decides
                yield from self._paced(plan.overlay.size / SAMPLE_RATE, overlay=plan.overlay)
                overlay_done = True
                continue
            if started and overlay_done and self.listen_s > 0 and loop.sink.playing:
                last = started[-1]
                done = any(isinstance(e, ev.TurnMetrics) and e.turn == last.turn for e in events)
                if done and now() - last.t >= self.listen_s:
                    loop.sink.stop()  # the visitor has heard enough and walks on
            yield from self._paced(0.1)
        return False


# --- the run ----------------------------------------------------------------------------------
def run_soak(cfg, n_turns: int, *, seed: int = 0, listen_s: float = 2.0, visit_turns: int = 6,
             room_name: str = "office", bounds: Bounds | None = None, stages=None,
             kinds: Sequence[str] | None = None, probe=None, max_minutes: float | None = None,
             progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the soak; a JSON-ready report with every turn, the trends and the verdict. `probe`: a
    dev MemProbe (avatar/bench/soak_mem.py) told of every turn, its report added as "tracemalloc".
    `max_minutes`: no turn starts after that long (the report covers the turns done); Ctrl-C too
    ends the run with a report of the turns done ("stopped" says why)."""
    from avatar.bench.room import impulse_response, room
    from avatar.audio.wav_sink import WavFileSink
    from avatar.pipeline.build import _echo_canceller, _turn_taking, load_stages
    from avatar.pipeline.voice_loop import VoiceLoop
    from avatar.trace import TRACER

    if n_turns < 1:
        raise AvatarError("the soak needs at least one turn", hint="avatar soak --turns 100")
    bounds = bounds or Bounds()
    leave_s = 1.0
    cfg = cfg.with_overrides({"pipeline.visitor_timeout_s": leave_s})  # a visitor leaves within a second
    tracer = TRACER
    kept = tracer.keep_past_visits
    tracer.keep_past_visits = False  # as the kiosk without --debug: a visit's spans go with the visitor
    errors_logged = _ErrorCounter()
    logging.getLogger().addHandler(errors_logged)
    plans = plan_turns(n_turns, seed, visit_turns, kinds)
    try:
        stages = stages or load_stages(cfg, tracer, progress=progress)
        echo = EchoPath(impulse_response(room(room_name), seed=seed, system_delay_ms=40.0))
        records: list[TurnRecord] = []
        t0 = now()
        stopped: list[str] = []
        paused_before = [0]

        def on_turn(plan: TurnPlan, seen: dict) -> None:
            rec = _record(plan, seen)
            rec.rss_mb, rec.threads, rec.py_threads = round(rss_mb(), 1), os_threads(), threading.active_count()
            rec.fds, rec.spans = open_fds(), len(tracer.spans())
            rec.pauses, paused_before[0] = mic.loop.pauses - paused_before[0], mic.loop.pauses
            records.append(rec)
            if max_minutes is not None and now() - t0 > 60 * max_minutes and len(records) < n_turns:
                stopped.append(f"time budget ({max_minutes:g} min) spent after {len(records)} turns")
                mic.close()
            progress(f"[{plan.index + 1}/{n_turns}] {plan.kind:<11} {plan.clip[:34]:<34} "
                     f"v2v {_ms(rec.voice_to_voice_ms)}  rss {rec.rss_mb:.0f} MB  threads {rec.threads}  "
                     f"fds {rec.fds}  spans {rec.spans}" + (f"  MISS: {rec.miss}" if rec.miss else "")
                     + (f"  ERRORS: {rec.stage_errors}" if rec.stage_errors else ""))
            if probe is not None:
                probe.on_turn(len(records), rec.rss_mb)

        noise = _read(ECHO_CLIPS / "background_noise_3s.wav")
        mic = SoakMicrophone(plans, echo, int(cfg.audio.frame_ms), listen_s=listen_s, leave_s=leave_s + 0.4,
                             turn_timeout_s=4 * float(cfg.pipeline.stage_timeout_s) + 20.0, on_turn=on_turn,
                             noise=noise)
        sink = WavFileSink(None, float(cfg.audio.output_latency_ms))
        sink.add_listener(echo.heard)
        loop = VoiceLoop(cfg, mic, sink, stages.answerer, stages.asr, stages.tts, tracer,
                         fallback_answerer=stages.fallback, echo_canceller=_echo_canceller(cfg),
                         renew=dict(stages.renew), on_renewed=stages.renewed, **_turn_taking(cfg))
        mic.loop = loop
        loop.subscribe(mic.observe)
        try:
            loop.run_until_done(drain=True, timeout=None)
        except KeyboardInterrupt:
            stopped.append(f"interrupted after {len(records)} turns")
            mic.close()
        finally:
            loop.stop()
            sink.close()
        wall = now() - t0
    finally:
        logging.getLogger().removeHandler(errors_logged)
        tracer.keep_past_visits = kept
    report = summarize(records, bounds, errors_logged.count, wall, {
        "turns": n_turns, "seed": seed, "listen_s": listen_s, "visit_turns": visit_turns, "room": room_name,
        "answer": cfg.answer.kind, "notices": list(stages.notices), "stopped": stopped[0] if stopped else None})
    if probe is not None and probe.report is not None:
        report["tracemalloc"] = probe.report
    return report


class _ErrorCounter(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.ERROR)
        self.count = 0
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _ms(v: float | None) -> str:
    return "   -   " if v is None else f"{v:5.0f} ms"


def _record(plan: TurnPlan, seen: dict) -> TurnRecord:
    events = seen["events"]
    rec = TurnRecord(plan.index, plan.kind, plan.clip, plan.lang, overlay=plan.overlay_text,
                     overlay_at_s=round(plan.overlay_at_s, 2), timed_out=seen["timed_out"],
                     wall_s=round(seen["wall_s"], 2))
    metrics = [e for e in events if isinstance(e, ev.TurnMetrics)]
    rec.replies = len(metrics)
    if metrics:
        rec.voice_to_voice_ms = round(metrics[0].voice_to_voice_ms, 1)
        rec.later_v2v_ms = [round(m.voice_to_voice_ms, 1) for m in metrics[1:]]
    rec.barge_in_stops = sum(isinstance(e, ev.PlaybackStopped) and e.reason == "barge_in" for e in events)
    rec.transcripts = [e.text for e in events if isinstance(e, ev.FinalTranscript) and e.text]
    rec.stage_errors = [e.stage for e in events if isinstance(e, ev.StageError)]
    if plan.kind == "question" and not rec.replies:
        rec.miss = "no reply"
    elif plan.kind == "barge_in" and not rec.barge_in_stops:
        rec.miss = "the interruption did not stop the reply"
    elif plan.kind == "barge_in" and rec.replies < 2:
        rec.miss = "the interruption was not answered"
    elif plan.kind == "backchannel" and rec.barge_in_stops:
        rec.miss = "a backchannel stopped the reply"
    elif plan.kind == "bad" and plan.clip in PHANTOM_KINDS and rec.replies:
        rec.miss = "a reply to " + plan.clip
    if rec.timed_out:
        rec.miss = rec.miss or "the turn never ended"
    return rec


# --- the report ----------------------------------------------------------------------------------
def slope_per_100(values: Sequence[float]) -> float | None:
    """Least-squares slope of values against turn index, per 100 turns (None under 3 points)."""
    if len(values) < 3:
        return None
    x = np.arange(len(values), dtype=np.float64)
    return float(np.polyfit(x, np.asarray(values, np.float64), 1)[0] * 100)


def summarize(records: list[TurnRecord], bounds: Bounds, logged_errors: int, wall_s: float,
              setup: dict | None = None) -> dict[str, Any]:
    n = len(records)
    out: dict[str, Any] = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                           "machine": f"{platform.machine()} {os.cpu_count() or 0} cores",
                           **(setup or {}), "turns_done": n, "wall_s": round(wall_s, 1)}
    warm = max(1, n // 10)  # the first tenth warms up latency (lazy imports, first-use costs)
    # memory: caches fill by turns (clauses spoken, word stems, allocator pools), so its warm-up is
    # counted in turns (the soak: from turn 200 of 2,000), at most half the run
    mem_warm = max(1, min(bounds.warmup_turns, n // 2))
    v2v = [r.voice_to_voice_ms for r in records]
    early = [v for v in v2v[warm: max(warm + 1, (3 * n) // 10)] if v is not None]
    late = [v for v in v2v[n - max(1, n // 10):] if v is not None]
    p95_early, p95_late = percentile_ms(early, 95), percentile_ms(late, 95)
    drift = (None if not p95_early or p95_late is None else round(100 * (p95_late - p95_early) / p95_early, 1))
    all_v = [v for v in v2v if v is not None]
    out["latency"] = {"p50": percentile_ms(all_v, 50), "p95": percentile_ms(all_v, 95), "n": len(all_v),
                      "p95_turns_10_30pct": p95_early, "p95_last_10pct": p95_late, "drift_pct": drift,
                      "slope_ms_per_100_turns": _round(slope_per_100(all_v)),
                      "by_lang": {lang: percentile_ms([r.voice_to_voice_ms for r in records if r.lang == lang
                                                       and r.voice_to_voice_ms is not None], 50)
                                  for lang in sorted({r.lang for r in records})}}
    rss = [r.rss_mb for r in records]
    second = rss[n // 2:]
    span = max(1, min(10, n // 20))  # medians over a few turns: RSS moves by tens of MB within a turn
    rss_warm = float(np.median(rss[max(0, mem_warm - span): mem_warm + span])) if rss else 0.0
    rss_end = float(np.median(rss[-span:])) if rss else 0.0
    tenths = [rss[i * n // 10:(i + 1) * n // 10] for i in range(10)] if n >= 10 else []
    out["rss_mb"] = {"first": rss[0] if rss else None, "warmup_turn": mem_warm, "after_warmup": round(rss_warm, 1),
                     "end": round(rss_end, 1), "max": max(rss, default=None),
                     "median_by_tenth": [round(float(np.median(t)), 1) for t in tenths],
                     "growth_pct": round(100 * (rss_end - rss_warm) / rss_warm, 2) if rss_warm else None,
                     "slope_mb_per_100_turns_second_half": _round(slope_per_100(second), 2)}
    over = [r for r in records if r.kind in ("barge_in", "backchannel")]
    out["over_reply"] = {  # what was said over the reply: did an onset pause it, did it stop
        f"{r_kind}/{name}": {"turns": len(rs), "paused": sum(r.pauses > 0 for r in rs),
                             "stopped": sum(r.barge_in_stops > 0 for r in rs), "missed": sum(bool(r.miss) for r in rs)}
        for r_kind, name in sorted({(r.kind, r.overlay) for r in over})
        for rs in [[r for r in over if (r.kind, r.overlay) == (r_kind, name)]]}
    for key in ("threads", "fds", "spans"):
        series = [getattr(r, key) for r in records]
        out[key] = {"first": series[0] if series else None, "after_warmup": series[warm - 1] if series else None,
                    "end": series[-1] if series else None, "max": max(series, default=None),
                    "max_after_warmup": max(series[warm:], default=None) if series[warm:] else None,
                    "max_last_half": max(series[n // 2:], default=None) if series[n // 2:] else None}
    stage_errors = sum(len(r.stage_errors) for r in records)
    timeouts = sum(r.timed_out for r in records)
    kinds = sorted({r.kind for r in records})
    out["kinds"] = {k: {"turns": sum(r.kind == k for r in records), "misses": sum(r.kind == k and bool(r.miss)
                                                                                  for r in records)} for k in kinds}
    out["misses"] = [{"turn": r.index, "kind": r.kind, "clip": r.clip, "overlay": r.overlay, "miss": r.miss}
                     for r in records if r.miss]
    out["errors"] = {"stage_errors": stage_errors, "turns_timed_out": timeouts, "logged": logged_errors,
                     "total": stage_errors + timeouts + logged_errors}
    out["bounds"] = asdict(bounds)
    out["checks"] = checks = _checks(out, bounds, n)
    out["ok"] = all(c["ok"] for c in checks.values() if c["ok"] is not None)
    out["records"] = [asdict(r) for r in records]
    return out


def _checks(out: dict, b: Bounds, n: int) -> dict[str, dict]:
    judged = n >= b.min_turns_for_drift

    def check(ok, value, limit) -> dict:
        return {"ok": ok, "value": value, "limit": limit}

    growth = out["rss_mb"]["growth_pct"]
    drift = out["latency"]["drift_pct"]
    th, fd = out["threads"], out["fds"]
    return {
        "rss_growth_pct": check(None if growth is None or not judged else growth <= b.rss_growth_pct,
                                growth, b.rss_growth_pct),
        "threads_flat": check(None if th["max_after_warmup"] is None else
                              th["max_after_warmup"] <= th["after_warmup"] + b.threads_slack,
                              th["max_after_warmup"], th["after_warmup"] + b.threads_slack if th["after_warmup"] else None),
        "fds_flat": check(None if fd["max_after_warmup"] is None else
                          fd["max_after_warmup"] <= fd["after_warmup"] + b.fds_slack,
                          fd["max_after_warmup"], fd["after_warmup"] + b.fds_slack if fd["after_warmup"] else None),
        "latency_drift_pct": check(None if drift is None or not judged else drift <= b.latency_drift_pct,
                                   drift, b.latency_drift_pct),
        "errors": check(out["errors"]["total"] <= b.errors, out["errors"]["total"], b.errors),
    }


def _round(v: float | None, digits: int = 1) -> float | None:
    return None if v is None else round(v, digits)


def format_report(r: dict) -> str:
    lat, rss = r["latency"], r["rss_mb"]
    lines = [f"soak: {r['turns_done']} turns in {r['wall_s']:.0f} s ({r['machine']}, answer {r.get('answer')})",
             f"  voice-to-voice p50 {lat['p50']} ms, p95 {lat['p95']} ms (n={lat['n']}); p95 turns 10-30 % "
             f"{lat['p95_turns_10_30pct']} ms, last 10 % {lat['p95_last_10pct']} ms, drift {lat['drift_pct']} %",
             f"  RSS {rss['first']} -> {rss['after_warmup']} (turn {rss['warmup_turn']}) -> {rss['end']} MB, growth "
             f"{rss['growth_pct']} %, second-half slope {rss['slope_mb_per_100_turns_second_half']} MB/100 turns; "
             f"median by tenth {rss['median_by_tenth']}",
             f"  threads {r['threads']['after_warmup']} -> {r['threads']['end']} (max {r['threads']['max_after_warmup']}), "
             f"open fds {r['fds']['after_warmup']} -> {r['fds']['end']} (max {r['fds']['max_after_warmup']}), "
             f"trace spans held {r['spans']['end']} (max {r['spans']['max']})",
             f"  errors {r['errors']}",
             "  turns: " + ", ".join(f"{k} {v['turns']} ({v['misses']} missed)" for k, v in r["kinds"].items())]
    for m in r["misses"][:20]:
        lines.append(f"    miss turn {m['turn']} ({m['kind']}, {m['clip']}): {m['miss']}")
    for name, c in r["checks"].items():
        verdict = "not judged" if c["ok"] is None else ("ok" if c["ok"] else "BROKEN")
        lines.append(f"  {name}: {c['value']} (limit {c['limit']}) {verdict}")
    if r.get("stopped"):
        lines.append(f"  stopped early: {r['stopped']} of {r.get('turns')}")
    lines.append("soak: " + ("all bounds held" if r["ok"] else "a bound is broken"))
    return "\n".join(lines)
