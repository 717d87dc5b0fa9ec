"""`python -m avatar.answer.retrieval PACK LANG QUESTION...`: what each question retrieves, and how fast."""
from __future__ import annotations

from avatar.answer.retrieval.retriever import Retriever


def main(argv: list[str] | None = None) -> int:
    """`python -m avatar.answer.retrieval PACK LANG QUESTION...`: what each question retrieves, and how fast.
    PACK `synthetic:N` is the sample pack grown to N facts (avatar/answer/synthetic_pack.py)."""
    import argparse
    import sys
    import tempfile

    from avatar.answer.knowledge import load_pack
    from avatar.errors import AvatarError
    from avatar.trace import now

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("pack", help="a venue folder or venue.toml, or synthetic:N for a generated pack of N facts")
    parser.add_argument("lang", choices=("de", "en"))
    parser.add_argument("questions", nargs="+")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=200, help="timing repeats per question")
    parser.add_argument("--meaning", action="store_true",
                        help="order the facts by meaning too, as the kiosk does (answer.semantic_weight); the first "
                             "time includes the question's vector, the repeats reuse it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.pack
        if path.startswith("synthetic:"):
            from avatar.answer.synthetic_pack import write_synthetic_pack

            path, _ = write_synthetic_pack(tmp, int(path.split(":", 1)[1]))
        t0 = now()
        try:
            pack = load_pack(path)
        except AvatarError as exc:  # a wrong path or a broken pack: say what, not a traceback
            print(f"error: {exc.message}" + (f"\n  hint: {exc.hint}" if exc.hint else ""), file=sys.stderr)
            return 2
        print(f"{len(pack.entries)} facts loaded in {(now() - t0) * 1000:.1f} ms")
    scorer = None
    if args.meaning:
        from avatar.answer.retrieval.semantic import shared_scorer

        scorer = shared_scorer()
        if scorer is None:
            print("meaning: the semantic model did not load (see the warning): words only")
    retriever = Retriever(pack, semantic=scorer)
    t0 = now()
    retriever.prepare([args.lang])
    print(f"index built in {(now() - t0) * 1000:.1f} ms")
    for q in args.questions:
        t0 = now()
        facts = retriever.retrieve(q, args.lang, args.k)
        first_ms = (now() - t0) * 1000
        t0 = now()
        for _ in range(args.repeats):
            retriever.retrieve(q, args.lang, args.k)
        ms = (now() - t0) * 1000 / args.repeats
        print(f"{q!r}: first {first_ms:.3f} ms, then {ms:.3f} ms per query")
        for f in facts:
            print(f"  {f.score:7.3f} {f.id}: {f.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

