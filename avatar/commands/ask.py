"""`avatar ask "QUESTION" [--knowledge DIR] [--model DIR] [--lang de|en|auto] [--json]`: text in, answer out."""
from __future__ import annotations

import json


def add_arguments(p) -> None:
    p.add_argument("question", help="the visitor's question, as typed or transcribed")
    p.add_argument("--knowledge", metavar="DIR", help="knowledge pack folder (default: general.knowledge)")
    p.add_argument("--model", metavar="DIR", help="diffusion model folder (default: llm.model)")
    p.add_argument("--lang", choices=("de", "en", "auto"), default="auto",
                   help="language of the question (default: detected from the text)")
    p.add_argument("--json", action="store_true", help='print {"reply","lang","facts","checks","decode"}')


def run(args, cfg) -> int:
    from avatar.answer.text import detect_language

    if args.model:
        cfg = cfg.with_overrides({"llm.model": args.model})
    lang = args.lang if args.lang != "auto" else detect_language(args.question, cfg.general.languages[0],
                                                                 tuple(cfg.general.languages))
    answerer = _answerer(cfg, args.knowledge)
    answer = answerer.answer(args.question, lang)
    if args.json:
        out = {"reply": answer.reply, "lang": answer.lang,
               "facts": [{"id": f.id, "text": f.text, "topic": f.topic, "score": f.score} for f in answer.facts],
               "checks": answer.checks, "decode": answer.decode, "source": answer.source}
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(answer.reply)
    return 0


def _answerer(cfg, knowledge: str | None):
    """The configured answerer (make_answerer), or the retrieval answerer while that is missing."""
    notices: list[str] = []
    try:
        from avatar.answer import make_answerer
    except ImportError:
        make_answerer = None
    if make_answerer is not None:
        made = make_answerer(cfg, knowledge=knowledge, notices=notices)
        answerer = made[0] if isinstance(made, tuple) else made
    else:
        from avatar.answer import knowledge as kp
        from avatar.answer.retrieval_answerer import RetrievalAnswerer
        from avatar.paths import resolve

        answerer = RetrievalAnswerer(kp.load_pack(resolve(knowledge or cfg.general.knowledge)), cfg)
    return answerer  # make_answerer logs its notices (a fallback in use) as warnings
