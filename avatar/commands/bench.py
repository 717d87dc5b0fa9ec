"""`avatar bench [WAV...] --json FILE [--sequential] [--repeats N] [--echo ROOM]`."""
from __future__ import annotations

import json
from pathlib import Path

from avatar.errors import AvatarError


def add_arguments(p) -> None:
    p.add_argument("wavs", nargs="*", help="question recordings, WAV or FLAC (default: the bundled bench set, "
                                           "assets/samples/)")
    p.add_argument("--json", metavar="FILE", help="write every turn and the percentiles here")
    p.add_argument("--sequential", action="store_true",
                   help="also run each turn the sequential way (side by side, interleaved)")
    p.add_argument("--vs", metavar="KEY=VALUE[,KEY=VALUE]", action="append", default=[],
                   help="also run the streaming design with these settings, side by side "
                        "(e.g. --vs pipeline.speculative=false)")
    p.add_argument("--repeats", type=int, default=1, help="run the set this many times")
    p.add_argument("--names-are-transcripts", action="store_true",
                   help="score the final transcripts against the file names (underscores as spaces)")
    p.add_argument("--references", metavar="FILE",
                   help="JSON object, file name -> reference transcript (word accuracy of the final transcripts)")
    p.add_argument("--echo", metavar="ROOM", help="echo/barge-in bench in a simulated room (office|lobby|hall)")
    p.add_argument("--turns", type=int, default=50, help="simulated turns for --echo")
    p.add_argument("--trace", metavar="FILE", help="also write the spans as a Chrome trace")


def default_wavs() -> list[Path]:
    from avatar.paths import assets_dir

    samples = assets_dir() / "samples"
    wavs = sorted([*samples.rglob("*.wav"), *samples.rglob("*.flac")])
    if not wavs:
        raise AvatarError("no bench recordings found in assets/samples/", "pass WAV files: avatar bench a.wav b.wav")
    return wavs


def run(args, cfg) -> int:
    if args.echo:
        from avatar_dev.bench.echo import run_echo_bench

        result = run_echo_bench(cfg, args.echo, n_turns=args.turns)
        print(json.dumps({k: v for k, v in result.items() if k != "turns"}, indent=2))
    else:
        from avatar_dev.bench.pipeline import format_table, run_bench
        from avatar.trace import Tracer

        wavs = [Path(w) for w in args.wavs] or default_wavs()
        for w in wavs:
            if not w.is_file():
                raise AvatarError(f"no such recording: {w}")
        modes = ("streaming", "sequential") if args.sequential else ("streaming",)
        modes += tuple(f"streaming+{v}" for v in args.vs)
        tracer = Tracer()
        references = {}
        if args.references:
            references = {Path(k).name: v for k, v in json.loads(Path(args.references).read_text("utf-8")).items()}
        result = run_bench(cfg, wavs, modes, repeats=max(1, args.repeats), tracer=tracer, references=references,
                           names_are_transcripts=args.names_are_transcripts)
        print(format_table(result))
        if args.trace:
            tracer.export_chrome(args.trace)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0
