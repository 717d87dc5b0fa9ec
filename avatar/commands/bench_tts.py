"""`avatar bench-tts [--repeats N] [--first-breath | --stream]`: time to first audio of the voices (tools/avatar_dev/bench/tts.py)."""
from __future__ import annotations


def add_arguments(p) -> None:
    p.add_argument("--repeats", type=int, default=9, help="syntheses per voice, interleaved")
    p.add_argument("--first-breath", action="store_true", help="compare a whole first clause with a cut one")
    p.add_argument("--stream", action="store_true", help="piper streamed vs whole clauses: first audio, total time, "
                   "SNR against the whole decode, joins")


def run(args, cfg) -> int:
    from avatar_dev.bench.tts import compare_voices, first_breath, stream_vs_whole

    (first_breath if args.first_breath else stream_vs_whole if args.stream else compare_voices)(cfg, args.repeats)
    return 0
