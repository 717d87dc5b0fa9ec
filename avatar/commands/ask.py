"""`avatar ask "QUESTION" [--knowledge DIR] [--model DIR] [--lang de|en|auto] [--json]`: text in, answer out.

`avatar ask --questions FILE` (or `-` for standard input) asks one question per line with the model
loaded once, so an operator can check a whole pack; with `--json` one JSON object per line.
`--visit` reads the lines as one visitor's turns in order (a follow-up sees the turns before it, as
at the kiosk); a blank line starts a new visitor.
"""
from __future__ import annotations

import json
import sys


def add_arguments(p) -> None:
    p.add_argument("question", nargs="?", help="the visitor's question, as typed or transcribed")
    p.add_argument("--questions", metavar="FILE",
                   help="ask every line of FILE ('-' = standard input; empty lines and lines starting with # skipped)")
    p.add_argument("--knowledge", metavar="DIR", help="knowledge pack folder (default: general.knowledge)")
    p.add_argument("--model", metavar="DIR", help="diffusion model folder (default: llm.model)")
    p.add_argument("--lang", choices=("de", "en", "auto"), default="auto",
                   help="language of the question (default: detected from the text)")
    p.add_argument("--visit", action="store_true",
                   help="with --questions: the lines are one visitor's turns in order; a blank line starts a new visitor")
    p.add_argument("--json", action="store_true", help='print {"reply","lang","facts","checks","decode"}')


def run(args, cfg) -> int:
    from avatar.errors import AvatarError

    if args.model:
        cfg = cfg.with_overrides({"llm.model": args.model})
    if (args.question is None) == (args.questions is None):
        raise AvatarError("ask needs one question or --questions FILE (not both)",
                          hint='avatar ask "Wo ist die Garderobe?"  or  avatar ask --questions questions.txt')
    if args.visit and args.questions is None:
        raise AvatarError("--visit needs --questions FILE (one visitor's turns, one per line)",
                          hint="avatar ask --questions visit.txt --visit")
    visits = [[args.question]] if args.question is not None else _read_questions(args.questions, args.visit)
    answerer = _answerer(cfg, args.knowledge, strict=bool(args.model))
    retriever = getattr(answerer, "retriever", None)
    if retriever is not None and hasattr(retriever, "prepare"):
        retriever.prepare(tuple(cfg.general.languages))  # the index at load: a question's time is its own
    many = args.questions is not None
    for number, questions in enumerate(visits, 1):
        visitor = _visitor(cfg) if args.visit else None
        if args.visit and not args.json and number > 1:
            print("--- next visitor\n", flush=True)
        for question in questions:
            history = visitor.recent() if visitor else []
            answer = answerer.answer(question, _language(args, cfg, question), history)
            if visitor:
                visitor.add(_history_turn(question, answer))
            if args.json:
                out = {"question": question} if many else {}
                if args.visit:
                    out["visitor"] = number
                out.update({"reply": answer.reply, "lang": answer.lang,
                            "facts": [{"id": f.id, "text": f.text, "topic": f.topic, "score": f.score} for f in answer.facts],
                            "checks": answer.checks.to_dict(), "decode": answer.decode.to_json(), "source": answer.source})
                print(json.dumps(out, ensure_ascii=False, indent=None if many else 2), flush=True)
            elif many:
                print(f"Q: {question}\nA: {answer.reply}\n", flush=True)
            else:
                print(answer.reply)
    return 0


def _visitor(cfg):
    import threading

    from avatar.pipeline.visitor import VisitorSession

    return VisitorSession(cfg, threading.RLock())  # the kiosk's own record of a visit: its last turns


def _history_turn(question: str, answer):
    from avatar.answer_types import HistoryTurn

    return HistoryTurn(question, answer.reply, answer.lang)


def _language(args, cfg, question: str) -> str:
    from avatar.answer.text import detect_language

    return args.lang if args.lang != "auto" else detect_language(question, cfg.general.languages[0],
                                                                 tuple(cfg.general.languages))


def _read_questions(source: str, visits: bool = False) -> list[list[str]]:
    """The questions of a UTF-8 file or standard input, one per line, # comments skipped: one group
    (blank lines skipped), or with `visits` one group per visitor (a blank line ends a visit)."""
    from avatar.errors import AvatarError
    from pathlib import Path

    if source == "-":
        text = sys.stdin.read()
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise AvatarError(f"questions file not found: {path}", hint="one question per line, UTF-8") from None
        except IsADirectoryError:
            raise AvatarError(f"{path} is a folder, not a questions file", hint="one question per line, UTF-8") from None
        except UnicodeDecodeError:
            raise AvatarError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from None
    groups: list[list[str]] = [[]]
    for line in text.splitlines():
        if not line.strip():
            if visits and groups[-1]:
                groups.append([])
        elif not line.lstrip().startswith("#"):
            groups[-1].append(line.strip())
    groups = [g for g in groups if g]
    if not groups:
        raise AvatarError(f"no questions in {source}", hint="one question per line")
    return groups


def _answerer(cfg, knowledge: str | None, strict: bool = False):
    """The configured answerer (make_answerer), or the retrieval answerer while that is missing;
    `strict`: a model named with --model that cannot serve is an error, not a quiet fallback."""
    notices: list[str] = []
    try:
        from avatar.answer import make_answerer
    except ImportError:
        make_answerer = None
    if make_answerer is not None:
        made = make_answerer(cfg, knowledge=knowledge, notices=notices, strict=strict)
        answerer = made[0] if isinstance(made, tuple) else made
    else:
        from avatar.answer import knowledge as kp
        from avatar.answer.retrieval_answerer import RetrievalAnswerer
        from avatar.paths import resolve

        answerer = RetrievalAnswerer(kp.load_pack(resolve(knowledge or cfg.general.knowledge)), cfg)
    return answerer  # make_answerer logs its notices (a fallback in use) as warnings
