"""`avatar doctor`: what this box has, what is missing, and what falls back (never silently)."""
from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import asdict, dataclass


@dataclass
class Check:
    name: str
    status: str  # ok | fallback | missing
    detail: str
    hint: str = ""


def add_arguments(p) -> None:
    p.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args, cfg) -> int:
    checks = collect(cfg)
    if args.json:
        print(json.dumps([asdict(c) for c in checks], indent=2, ensure_ascii=False))
    else:
        marks = {"ok": "ok      ", "fallback": "FALLBACK", "missing": "MISSING "}
        for c in checks:
            print(f"[{marks[c.status]}] {c.name:<18} {c.detail}")
            if c.hint and c.status != "ok":
                print(f"{'':30}-> {c.hint}")
    return 0 if all(c.status != "missing" or c.name in OPTIONAL for c in checks) else 1


OPTIONAL = {"audio devices", "display", "cuda", "echo canceller", "admin PIN", "meaning"}


def collect(cfg) -> list[Check]:
    return [_safe(fn, cfg) for fn in (_display, _audio, _asr, _tts_en, _tts_de, _knowledge, _semantic, _llm, _cuda,
                                    _aec, _admin_pin)]


NAMES = {"_display": "display", "_audio": "audio devices", "_asr": "speech recognition", "_tts_en": "voice (en)",
         "_tts_de": "voice (de)", "_knowledge": "knowledge pack", "_semantic": "meaning", "_llm": "language model", "_cuda": "cuda",
         "_aec": "echo canceller", "_admin_pin": "admin PIN"}


def _safe(fn, cfg) -> Check:
    name = NAMES.get(fn.__name__, fn.__name__)
    try:
        return fn(cfg)
    except Exception as exc:  # the doctor reports every failure, it never crashes on one
        return Check(name, "missing", f"{type(exc).__name__}: {exc}")


def _display(cfg) -> Check:
    from avatar import sysdeps

    platform = os.environ.get("QT_QPA_PLATFORM", "")
    absent = sysdeps.missing(sysdeps.QT_XCB + sysdeps.QT_GUI)
    if absent:  # on an X display Qt's xcb plugin would abort the app at start
        names = ", ".join(lib.soname for lib in absent)
        status = "missing" if os.environ.get("DISPLAY") and platform.split(":")[0] in ("", "xcb") else "fallback"
        return Check("display", status, f"Qt's xcb platform libraries not found: {names} (no window on an X "
                     "display; offscreen and --headless work)", sysdeps.install_command(absent))
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or platform:
        where = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or f"QT_QPA_PLATFORM={platform}"
        return Check("display", "ok", where)
    return Check("display", "fallback", "no display: `avatar run` runs headless on sample questions",
                 "start it on the kiosk's desktop session (or under Xvfb)")


def _audio(cfg) -> Check:
    from avatar.errors import AvatarError

    from avatar import sysdeps

    hint = "files work meanwhile: avatar run --input WAV --output WAV"
    if sysdeps.missing(sysdeps.PORTAUDIO):
        return Check("audio devices", "missing", "PortAudio library not found (libportaudio.so.2)",
                     f"{sysdeps.install_command(sysdeps.PORTAUDIO)}; {hint}")
    try:
        import sounddevice as sd  # needs the PortAudio library
    except OSError:
        return Check("audio devices", "missing", "PortAudio library not found",
                     f"{sysdeps.install_command(sysdeps.PORTAUDIO)}; {hint}")
    try:
        devices = sd.query_devices()
        ins = [d for d in devices if d["max_input_channels"] > 0]
        outs = [d for d in devices if d["max_output_channels"] > 0]
    except AvatarError as exc:
        return Check("audio devices", "missing", exc.message, exc.hint or "")
    if not ins or not outs:
        return Check("audio devices", "missing", f"{len(ins)} input and {len(outs)} output devices",
                     "connect a microphone and a loudspeaker")
    return Check("audio devices", "ok", f"{len(ins)} input, {len(outs)} output")


def _asr(cfg) -> Check:
    from avatar.asr import assets

    status = assets.status(cfg.asr.model)
    return Check("speech recognition", status.state, status.detail, status.hint)


def _voice(cfg, lang: str) -> Check:
    from avatar.tts.synthesizer import voice_info

    info = voice_info(cfg.tts, lang)
    name = f"voice ({lang})"
    if info is None:
        return Check(name, "missing", "no voice", "install a piper voice into models/ (`avatar models import DIR`)")
    if info.fallback:
        return Check(name, "fallback", f"{info.name} via {info.engine} (no {lang} piper voice installed)",
                     "drop a piper voice (*.onnx + *.onnx.json) for this language into models/")
    return Check(name, "ok", f"{info.name} via {info.engine}")


def _tts_en(cfg) -> Check:
    return _voice(cfg, "en")


def _tts_de(cfg) -> Check:
    return _voice(cfg, "de")


def _admin_pin(cfg) -> Check:
    from avatar.errors import ConfigError
    from avatar.ui.pin import pin_file, stored_pin

    try:
        pin = stored_pin(cfg)
    except ConfigError as exc:
        return Check("admin PIN", "missing", exc.message, exc.hint or "")
    if pin.is_set:
        return Check("admin PIN", "ok", f"set ({pin.where})")
    return Check("admin PIN", "missing", "not set: the kiosk cannot be left from its screen",
                 f"run `avatar admin set-pin` (writes {pin_file(cfg)}); docs/KIOSK.md")


def _knowledge(cfg) -> Check:
    from avatar.answer import load_knowledge
    from avatar.answer.knowledge import KnowledgeError, load_pack

    try:
        pack = load_knowledge(cfg)
    except KnowledgeError as exc:
        from avatar.answer.last_good import copy_path
        from avatar.paths import resolve

        kept = copy_path(resolve(cfg.general.knowledge), cfg)
        if not kept.is_file():
            raise
        try:
            version = load_pack(kept).version
        except KnowledgeError:
            raise exc from None
        return Check("knowledge pack", "fallback", f"{exc.message}: the kiosk answers from its last version that "
                     f"loaded ({version}; {kept})", exc.hint or "mend the file; docs/KNOWLEDGE.md")
    return Check("knowledge pack", "ok", f"{pack.name}: {len(pack.facts('de'))} facts ({cfg.general.knowledge}; "
                 f"{pack.version})")


def _semantic(cfg) -> Check:
    """The retriever's sentence model; without it questions are matched to facts by their words."""
    if float(cfg.answer.semantic_weight) <= 0:
        return Check("meaning", "fallback", "answer.semantic_weight = 0: facts are found by their words only")
    from avatar.answer.retrieval import semantic

    state, detail, hint = semantic.status()
    if state == "ok":
        return Check("meaning", "ok", detail)
    return Check("meaning", "fallback", f"{detail}: facts are found by their words only", hint)


def _llm(cfg) -> Check:
    from avatar.paths import resolve

    path = resolve(cfg.llm.model)
    if cfg.answer.kind == "retrieval":
        return Check("language model", "fallback", "answer.kind = retrieval: no diffusion model in use")
    if not (path / "config.json").exists():
        return Check("language model", "fallback", f"no model at {path}: answering from retrieval",
                     "train one (`avatar train`) or set llm.model to a diffusion model folder")
    from avatar.answer import load_answer_model
    from avatar.errors import ModelError
    from avatar.integrity import check_model

    try:
        integrity = check_model(path)  # a damaged shipped model is not "ok" (cached: costs a stat)
        model = load_answer_model(cfg, path)
    except ModelError as exc:
        return Check("language model", "missing", exc.message, exc.hint or "")
    return Check("language model", "ok", f"{path.name} ({model.family.name}, {cfg.llm.device}, {model.backend}); {integrity.detail}")


def _cuda(cfg) -> Check:
    try:
        import torch
    except ImportError:  # the kiosk runs the embedded model in numpy; only cuda needs torch
        status = "missing" if cfg.llm.device == "cuda" else "ok"
        return Check("cuda", status, "PyTorch is not installed: the decoder runs on the CPU in numpy",
                     "install torch (`make install`) for llm.device = \"cuda\"" if status == "missing" else "")

    if torch.cuda.is_available():
        return Check("cuda", "ok", torch.cuda.get_device_name(0))
    status = "missing" if cfg.llm.device == "cuda" else "ok"
    return Check("cuda", status, "no CUDA device: the decoder runs on the CPU",
                 "set llm.device = \"cpu\"" if status == "missing" else "")


def _aec(cfg) -> Check:
    if importlib.util.find_spec("livekit") is None:
        return Check("echo canceller", "missing", "livekit not installed: no echo cancellation",
                     "pip install livekit (the WebRTC audio-processing module)")
    return Check("echo canceller", "ok" if cfg.echo.enabled else "fallback",
                 "WebRTC AEC (livekit)" if cfg.echo.enabled else "echo.enabled = false")
