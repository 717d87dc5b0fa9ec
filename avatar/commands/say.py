"""`avatar say TEXT --lang de|en -o WAV [--visemes]`: speak TEXT into a WAV file, clause by clause."""
from __future__ import annotations

from pathlib import Path

from avatar.errors import AudioFileError


def add_arguments(p) -> None:
    p.add_argument("text", help="what to say")
    p.add_argument("--lang", choices=("de", "en", "auto"), default="auto",
                   help="language of TEXT (default: detected from the text)")
    p.add_argument("-o", "--output", required=True, metavar="WAV", help="WAV file to write")
    p.add_argument("--visemes", action="store_true", help="also print the mouth shapes with their times")


def run(args, cfg) -> int:
    import numpy as np
    import soundfile as sf

    from avatar.answer.text import detect_language
    from avatar.trace import now
    from avatar.tts.synthesizer import Synthesizer

    lang = args.lang if args.lang != "auto" else detect_language(args.text, cfg.general.languages[0],
                                                                 tuple(cfg.general.languages))
    tts = Synthesizer(cfg.tts)
    info = tts.voice_for(lang)
    t_load = now()
    tts.warmup([lang])
    load_ms = (now() - t_load) * 1000
    chunks, first_ms = [], None
    t0 = now()
    for chunk in tts.synthesize(args.text, lang):
        if first_ms is None:
            first_ms = (now() - t0) * 1000
        chunks.append(chunk)
    total_ms = (now() - t0) * 1000
    if not chunks:
        print("nothing to say")
        return 1
    rate = chunks[0].sample_rate
    pcm = np.concatenate([c.pcm for c in chunks])
    out = Path(args.output)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        sf.write(str(out), pcm, rate, subtype="PCM_16")
    except (OSError, RuntimeError) as exc:
        raise AudioFileError(f"cannot write {out}: {exc}", hint="check the folder exists and is writable") from None
    if info.fallback:
        print(f"note: {info.message}")
    print(f"{out}: {len(pcm) / rate:.2f} s at {rate} Hz, {len(chunks)} clause(s), voice {info.name} ({info.engine})")
    print(f"load+warmup {load_ms:.0f} ms, first audio {first_ms:.0f} ms, all {total_ms:.0f} ms")
    if args.visemes:
        offset = 0.0
        for c in chunks:
            for o, d, v in c.visemes:
                print(f"{offset + o:7.3f} {d:6.3f} {v}")
            offset += c.duration_s
    return 0
