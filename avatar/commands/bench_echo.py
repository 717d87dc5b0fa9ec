"""`avatar bench-echo ROOM`: echo and barge-in in a simulated room (tools/avatar_dev/bench/echo.py).

`avatar bench --echo ROOM` runs the same bench with the default flags.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def add_arguments(p) -> None:
    from avatar_dev.bench.echo_turn import POLICIES
    from avatar_dev.bench.room import ROOMS

    p.add_argument("room", choices=[*ROOMS, "all"], help="simulated room")
    p.add_argument("--turns", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--partials", choices=("none", "oracle", "asr"), default="none",
                   help="none: length decides; asr: transcribe the speech so far when the rule asks (the stop "
                        "waits for it); oracle: the words are known at once (an upper bound)")
    p.add_argument("--policy", choices=POLICIES, default="loop",
                   help="loop: the voice loop's rule (avatar/pipeline/barge_in.py: pause at the voice onset, stop "
                        "for an interruption, resume after a backchannel); stop: the same rule without the pause "
                        "(a sink that cannot pause); pause: the rule pausing where the endpointer opens speech")
    p.add_argument("--no-aec", action="store_true", help="the same turns without echo cancellation (baseline)")
    p.add_argument("--ser", nargs=2, type=float, default=None, metavar=("LO", "HI"),
                   help="visitor speech over echo at the microphone, dB (drawn per turn; default 0 10, the "
                        "loopback -3 3: as loud as the reply)")
    p.add_argument("--replies", choices=("recorded", "tts"), default="recorded",
                   help="recorded: the project's voice saying the bench's replies, recorded once (the same figures "
                        "every run); tts: synthesized now (piper's output differs a little every run)")
    p.add_argument("--json", metavar="FILE")


def run(args, cfg) -> int:
    from avatar_dev.bench.echo import run_echo_bench

    result = run_echo_bench(cfg, args.room, n_turns=args.turns, seed=args.seed, partials=args.partials,
                            echo_cancellation=not args.no_aec, ser_db=None if args.ser is None else tuple(args.ser), policy=args.policy,
                            replies=args.replies)
    print(json.dumps({k: v for k, v in result.items() if k != "turns"}, indent=2))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":  # the older form, `python -m avatar.commands.bench_echo ROOM [--set K=V] ...`
    from avatar.cli import main

    argv, sets = sys.argv[1:], []
    while "--set" in argv:
        i = argv.index("--set")
        sets += argv[i:i + 2]
        del argv[i:i + 2]
    sys.exit(main([*sets, "bench-echo", *argv]))
