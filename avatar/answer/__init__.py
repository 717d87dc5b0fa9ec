"""Answerers: `make_answerer(cfg)` gives the configured one, falling back to retrieval when needed."""
from __future__ import annotations

import logging

from avatar.errors import AvatarError
from avatar.trace import TRACER, Tracer

log = logging.getLogger(__name__)


def load_knowledge(cfg, knowledge: str | None = None, notices: list | None = None, last_good: bool = False):
    """The venue's pack. With `last_good` (the kiosk), a pack that does not load is replaced by its
    last version that did (answer/last_good.py), with a notice; else its error is raised."""
    from avatar.answer.knowledge import load_pack
    from avatar.paths import resolve

    path = resolve(knowledge or cfg.general.knowledge)
    if not last_good:
        return load_pack(path)
    from avatar.answer.last_good import load_keeping_last_good

    pack, notice = load_keeping_last_good(path, cfg)
    if notice and notices is not None:
        notices.append(notice)
    return pack


def load_answer_model(cfg, path=None):
    """The diffusion model for the answerer: refused at load (ModelError) when no manifest lists its
    files' sha256 (inside models/ or not), and when its tokenizer cannot write the answerer's prompt and
    reply record."""
    from avatar.answer.prompt import RECORD_TOKENS
    from avatar.llm.loader import load_configured

    return load_configured(cfg.llm, path, needs_tokens=RECORD_TOKENS, purpose="the kiosk's answerer",
                           listed_only=True)


def make_answerer(cfg, tracer: Tracer = TRACER, knowledge: str | None = None, notices: list | None = None,
                  strict: bool = False, last_good: bool = False):
    """The answerer `answer.kind` asks for, and the retrieval answerer as its safe fallback.

    Returns (answerer, fallback). A missing or broken diffusion model is not fatal: the kiosk
    answers from retrieval and says so (notices, doctor, UI). With `strict` (a model the operator
    named explicitly, `avatar ask --model`) the model's error is raised instead. With `last_good`
    (the kiosk) a pack that does not load is replaced by its last version that did (load_knowledge).
    """
    from avatar.answer.retrieval_answerer import RetrievalAnswerer

    pack = load_knowledge(cfg, knowledge, notices, last_good)
    fallback = RetrievalAnswerer(pack, cfg)
    if cfg.answer.kind == "retrieval":
        return fallback, None
    try:
        from avatar.llm.e5_reader import is_reader_folder
        from avatar.paths import resolve

        if is_reader_folder(resolve(cfg.llm.model)):  # the e5 reader (issue 36): its own answer path
            from avatar.answer.reader_answerer import ReaderAnswerer

            return ReaderAnswerer(cfg, pack, tracer), fallback
        from avatar.answer.diffusion_answerer import DiffusionAnswerer

        return DiffusionAnswerer(cfg, pack, tracer, lm=load_answer_model(cfg)), fallback
    except AvatarError as exc:
        if strict:
            raise
        message = f"diffusion answerer unavailable, answering from retrieval: {exc.message}"
    except ImportError as exc:
        message = f"diffusion answerer not installed, answering from retrieval: {exc}"
    log.warning(message)
    if notices is not None:
        notices.append(message)
    return fallback, None


def forget_visitor() -> None:
    """Drop every cache that holds words of the visitor's questions or the replies made for them
    (word stems, extracted reply content, per-question support); the packs' indexes stay."""
    from avatar.answer.checks import content, grounding, stems
    from avatar.answer.retrieval import forget_words, semantic

    forget_words()
    semantic.forget()
    stems.stem.cache_clear()
    content.extract.cache_clear()
    grounding._support.cache_clear()
