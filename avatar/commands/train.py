"""`avatar train`: train the embedded diffusion model, or with --arch ar its autoregressive twin (CPU by default)."""
from __future__ import annotations

import json
from pathlib import Path

from avatar.paths import resolve


def add_arguments(parser) -> None:
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this much training time")
    parser.add_argument("--clock", default="wall", choices=["wall", "cpu"],
                        help="what --minutes counts: wall time, or this process's CPU time (fair between runs sharing a CPU)")
    parser.add_argument("--steps", type=int, default=100_000, help="stop after this many steps")
    parser.add_argument("--out", default="runs/avatar-mdlm", help="run folder (checkpoint.pt, model/)")
    parser.add_argument("--resume", action="store_true", help="go on from the run folder's checkpoint")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--size", default="base", choices=["base", "large", "small", "tiny"], help="model size preset")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch")
    parser.add_argument("--decline-share", type=float, default=0.15,
                        help="share of unanswerable questions in the training mix (evaluation keeps 0.15)")
    parser.add_argument("--styled-share", type=float, default=0.5,
                        help="share of examples from venues written in other operators' styles (tools/avatar_dev/train/styled.py)")
    parser.add_argument("--init", metavar="MODEL_DIR",
                        help="start from this model folder's weights and tokenizer (fine-tuning; fresh optimiser)")
    parser.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    parser.add_argument("--arch", default="mdlm", choices=["mdlm", "ar"],
                        help="mdlm: the diffusion model; ar: its autoregressive twin (same layers, causal, next-token loss)")
    parser.add_argument("--device", default="", help="cpu | cuda (default: cuda when present)")


def run(args, cfg) -> int:
    from avatar_dev.train.corpus import require_small_talk

    require_small_talk()  # the `train` extra: a clear error, before any work
    try:
        import torch  # noqa: F401  (the model is trained in torch; the kiosk runs it in numpy)
    except ImportError:
        from avatar.errors import AvatarError

        raise AvatarError("training needs PyTorch, which is not installed (the kiosk itself runs without it)",
                          hint="pip install torch==2.13.0 (make install does)") from None
    from avatar_dev.train.trainer import TrainOptions, train

    opts = TrainOptions(out=resolve(args.out), steps=args.steps, minutes=args.minutes, seed=args.seed,
                        resume=args.resume, batch=args.batch, size=args.size, threads=args.threads, device=args.device,
                        decline_share=args.decline_share, styled_share=args.styled_share, lr=args.lr,
                        init=resolve(args.init) if args.init else None, clock=args.clock, arch=args.arch)
    result = train(opts)
    (opts.out / "train_result.json").write_text(json.dumps(result, indent=1))
    print(f"trained {result['steps']} steps in {result['seconds'] / 60:.1f} min, loss {result['loss']:.3f}; "
          f"model folder: {Path(opts.out) / 'model'}")
    return 0
