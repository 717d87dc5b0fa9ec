"""The reader's input layout, shared by its training and the kiosk (numpy only).

Segments, each with positions from 0 (as e5 encodes a passage or a query on its own):
  fact i:   <s> passage: FACT </s>                     segment 0, attends to its own tokens
  question: <s> query: [LAST QUESTION LAST REPLY //] QUESTION </s>   segment 1, attends to facts + itself
  reply:    REPLY_LEN tokens (masks while decoding)     segment 2, attends to everything
So a fact's states depend on the fact alone (cacheable per pack) and the question's on the facts and
itself (computed once per turn); each decoding step runs only the reply block.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

REPLY_LEN = 32
MAX_FACT_TOKENS = 64
MAX_QUESTION_TOKENS = 64
MAX_FACTS = 4
MAX_POSITIONS = 128
FACT, QUESTION, REPLY = 0, 1, 2


@dataclass(frozen=True)
class Layout:
    ids: list[int]
    pos: list[int]
    seg: list[int]
    allowed: np.ndarray          # (T, T) bool: row may attend to column
    spans: list[tuple[int, int]]  # each fact's [start, end)
    question_span: tuple[int, int]
    reply_start: int


def fact_ids(tok, fact: str) -> list[int]:
    return [tok.bos] + tok.encode("passage: " + fact)[:MAX_FACT_TOKENS - 2] + [tok.eos]


def question_ids(tok, question: str, history: Sequence[tuple[str, str]] = ()) -> list[int]:
    """The question, after the visit's last turn where there is one; cut from the left to fit."""
    before = f"{history[-1][0]} {history[-1][1]} // " if history else ""
    body = tok.encode("query: " + before + question)
    room = MAX_QUESTION_TOKENS - 2
    if len(body) > room:
        head = tok.encode("query:")
        body = head + body[len(body) - (room - len(head)):]
    return [tok.bos] + body + [tok.eos]


def reply_ids(tok, reply: str) -> list[int]:
    """The reply block's target: the reply's tokens, then `</s>` to the end of the block."""
    ids = tok.encode(reply)[:REPLY_LEN - 1]
    return ids + [tok.eos] * (REPLY_LEN - len(ids))


def build(tok, facts: Sequence[str], question: str, history: Sequence[tuple[str, str]] = (),
          reply: str | None = None, fact_tokens: Sequence[list[int]] | None = None) -> Layout:
    ids: list[int] = []
    pos: list[int] = []
    seg: list[int] = []
    spans: list[tuple[int, int]] = []
    chunks = list(fact_tokens) if fact_tokens is not None else [fact_ids(tok, f) for f in facts[:MAX_FACTS]]
    for chunk in chunks:
        spans.append((len(ids), len(ids) + len(chunk)))
        ids += chunk
        pos += list(range(len(chunk)))
        seg += [FACT] * len(chunk)
    q = question_ids(tok, question, history)
    qs = (len(ids), len(ids) + len(q))
    ids += q
    pos += list(range(len(q)))
    seg += [QUESTION] * len(q)
    start = len(ids)
    ids += reply_ids(tok, reply) if reply is not None else [tok.mask] * REPLY_LEN
    pos += list(range(REPLY_LEN))
    seg += [REPLY] * REPLY_LEN
    T = len(ids)
    allowed = np.zeros((T, T), dtype=bool)
    for a, b in spans:
        allowed[a:b, a:b] = True
    allowed[qs[0]:qs[1], :qs[1]] = True
    allowed[start:, :] = True
    return Layout(ids, pos, seg, allowed, spans, qs, start)
