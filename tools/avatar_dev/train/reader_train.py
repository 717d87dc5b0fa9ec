"""Fine-tune multilingual-e5-small into the kiosk's masked-diffusion reader (torch; the train extra).

The layout the reader sees (avatar/llm/reader_layout.py builds it, here and at run time):
  each retrieved fact its own segment `<s> passage: fact </s>` (attends to itself only, so a pack's
  fact states can be cached), the question segment `<s> query: [last turn] question </s>` (attends
  to the facts and itself), and the reply: a fixed block of masks that attends to everything.
Objective: MDLM / LLaDA's masked-diffusion loss on the reply block (a time t ~ U(0, 1), each reply
token masked with probability t, cross-entropy on the masked ones weighted 1/t); `</s>` fills the
block after the reply and is learnt like any token. Output: a dense + GELU + LayerNorm transform and
the frozen word embeddings as the output matrix (tied), over the reply vocabulary plus the prompt's
own tokens (so a name or number in a fact can be copied), with a learnt bias. Everything but the word
embeddings trains; `ship` writes the change as an int8 delta against the converted base.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from avatar.llm import reader_layout as layout
from avatar.llm.e5_base import Tokenizer
from avatar_dev.train.corpus import examples as corpus_examples
from avatar_dev.train.example import Example


class ReaderNet(nn.Module):
    def __init__(self, base: dict[str, np.ndarray], heads: int, eps: float) -> None:
        super().__init__()
        t = {k: torch.from_numpy(np.array(v)) for k, v in base.items()}
        H = t["emb.ln.w"].shape[0]
        self.H, self.heads, self.eps = H, heads, eps
        self.register_buffer("word", t["emb.word"], persistent=False)           # frozen, tied output
        self.pos = nn.Parameter(t["emb.pos"][: layout.MAX_POSITIONS].clone())
        self.type_emb = nn.Parameter(t["emb.type"][0].clone())
        self.seg = nn.Parameter(torch.zeros(3, H))                              # fact / question / reply
        self.eln = nn.LayerNorm(H, eps=eps)
        self.eln.weight.data, self.eln.bias.data = t["emb.ln.w"].clone(), t["emb.ln.b"].clone()
        n_layers = sum(1 for k in t if k.endswith(".q.w"))
        self.layers = nn.ModuleList()
        for i in range(n_layers):
            layer = nn.ModuleDict({p: nn.Linear(*reversed(t[f"l{i}.{p}.w"].shape)) for p in ("q", "k", "v", "ao", "fi", "fo")})
            for p in ("q", "k", "v", "ao", "fi", "fo"):
                layer[p].weight.data = t[f"l{i}.{p}.w"].clone()
                layer[p].bias.data = t[f"l{i}.{p}.b"].clone()
            for norm in ("aln", "oln"):
                ln = nn.LayerNorm(H, eps=eps)
                ln.weight.data, ln.bias.data = t[f"l{i}.{norm}.w"].clone(), t[f"l{i}.{norm}.b"].clone()
                layer[norm] = ln
            self.layers.append(layer)
        self.head_dense = nn.Linear(H, H)
        nn.init.eye_(self.head_dense.weight)
        nn.init.zeros_(self.head_dense.bias)
        self.head_ln = nn.LayerNorm(H, eps=eps)
        self.head_bias = nn.Parameter(torch.zeros(self.word.shape[0]))
        self.out_scale = nn.Parameter(torch.tensor(1.0))

    def hidden(self, ids, pos, seg, allowed):
        x = self.word[ids] + self.pos[pos] + self.type_emb + self.seg[seg]
        x = self.eln(x)
        B, T, H = x.shape
        nh, hd = self.heads, H // self.heads
        mask = allowed.unsqueeze(1)  # (B, 1, T, T) True = may attend
        for layer in self.layers:
            q = layer["q"](x).view(B, T, nh, hd).transpose(1, 2)
            k = layer["k"](x).view(B, T, nh, hd).transpose(1, 2)
            v = layer["v"](x).view(B, T, nh, hd).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            a = a.transpose(1, 2).reshape(B, T, H)
            x = layer["aln"](x + layer["ao"](a))
            x = layer["oln"](x + layer["fo"](F.gelu(layer["fi"](x))))
        return x

    def logits(self, h, cand):
        z = self.head_ln(F.gelu(self.head_dense(h)))
        return self.out_scale * (z @ self.word[cand].T) + self.head_bias[cand]


def _batch(tok: Tokenizer, exs: list[Example], rng: random.Random, vocab_cut: torch.Tensor):
    rows = [layout.build(tok, ex.facts, ex.question, ex.history, reply=ex.reply) for ex in exs]
    T = max(len(r.ids) for r in rows)
    B = len(rows)
    ids = torch.full((B, T), tok.pad, dtype=torch.long)
    pos = torch.zeros((B, T), dtype=torch.long)
    seg = torch.zeros((B, T), dtype=torch.long)
    allowed = torch.zeros((B, T, T), dtype=torch.bool)
    masked = torch.zeros((B, T), dtype=torch.bool)
    weight = torch.zeros((B, T))
    targets = torch.zeros((B, T), dtype=torch.long)
    prompt_tokens: set[int] = set()
    for b, r in enumerate(rows):
        n = len(r.ids)
        ids[b, :n] = torch.tensor(r.ids)
        pos[b, :n] = torch.tensor(r.pos)
        seg[b, :n] = torch.tensor(r.seg)
        allowed[b, :n, :n] = torch.from_numpy(r.allowed)
        for i in range(n, T):
            allowed[b, i, i] = True
        t = rng.uniform(0.05, 1.0)
        start = r.reply_start
        for j in range(layout.REPLY_LEN):
            if rng.random() < t:
                masked[b, start + j] = True
                weight[b, start + j] = 1.0 / t
        if not masked[b, start:start + layout.REPLY_LEN].any():
            j = rng.randrange(layout.REPLY_LEN)
            masked[b, start + j] = True
            weight[b, start + j] = 1.0 / t
        targets[b, :n] = torch.tensor(r.ids)
        prompt_tokens.update(r.ids[:start])
    ids = torch.where(masked, torch.full_like(ids, tok.mask), ids)
    cand = torch.unique(torch.cat([vocab_cut, torch.tensor(sorted(prompt_tokens), dtype=torch.long)]))
    return ids, pos, seg, allowed, masked, weight, targets, cand


def reply_vocabulary(tok: Tokenizer, n_examples: int, seed: int) -> list[int]:
    """Tokens the replies of the training stream use (plus the specials the block needs)."""
    from wordfreq import top_n_list

    seen: set[int] = {tok.eos}
    stream = _stream(seed)
    for _ in range(n_examples):
        seen.update(tok.encode(next(stream).reply))
    for lang in ("de", "en"):  # everyday words, so a reply is not limited to the generator's
        for word in top_n_list(lang, 3000):
            seen.update(tok.encode(word))
            seen.update(tok.encode(word.capitalize()))
    return sorted(seen)


def _stream(seed: int):
    return corpus_examples(seed, styled_share=0.5)


def train(args) -> None:
    from safetensors.numpy import load_file

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    base_dir = Path(args.base)
    tok = Tokenizer(base_dir)
    config = json.loads((base_dir / "config.json").read_text())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint.pt"
    net = ReaderNet(load_file(str(base_dir / "base.safetensors")), config["heads"], config["eps"])
    vocab_file = out / "reply_vocab.json"
    if vocab_file.exists():
        vocab = json.loads(vocab_file.read_text())
    else:
        vocab = reply_vocabulary(tok, args.vocab_examples, seed=10_000 + args.seed)
        vocab_file.write_text(json.dumps(vocab))
    vocab_cut = torch.tensor(vocab, dtype=torch.long)
    params = [p for p in net.parameters() if p.requires_grad]
    fresh = [net.seg, net.out_scale, net.head_bias, *net.head_dense.parameters(), *net.head_ln.parameters()]
    fresh_ids = {id(p) for p in fresh}
    body = [p for p in params if id(p) not in fresh_ids]
    opt = torch.optim.AdamW([{"params": body, "scale": 1.0}, {"params": fresh, "scale": args.head_lr_scale}],
                            lr=args.lr, weight_decay=0.01)
    step, seen = 0, 0
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"], strict=False)
        opt.load_state_dict(state["opt"])
        step, seen = state["step"], state["seen"]
        print(f"resumed at step {step} ({seen} examples)", flush=True)
    rng = random.Random(args.seed * 31 + step)
    stream = _stream(args.seed * 1000 + step)
    deadline = time.monotonic() + args.minutes * 60
    last_save = time.monotonic()
    losses: list[float] = []
    t0 = time.monotonic()
    while time.monotonic() < deadline:
        exs = [next(stream) for _ in range(args.batch)]
        ids, pos, seg, allowed, masked, weight, targets, cand = _batch(tok, exs, rng, vocab_cut)
        lr = args.lr * min(1.0, (step + 1) / args.warmup)
        for g in opt.param_groups:
            g["lr"] = lr * g["scale"]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
            h = net.hidden(ids, pos, seg, allowed)
            hm = h[masked]
            logits = net.logits(hm, cand).float()
        remap = torch.full((net.word.shape[0],), -100, dtype=torch.long)
        remap[cand] = torch.arange(len(cand))
        tgt = remap[targets[masked]]
        ce = F.cross_entropy(logits, tgt, reduction="none", ignore_index=-100)
        loss = (ce * weight[masked]).sum() / (args.batch * layout.REPLY_LEN)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        seen += len(exs)
        losses.append(float(ce.mean()))
        if step % 10 == 0:
            print(f"step {step} seen {seen} ce {np.mean(losses[-10:]):.3f} lr {lr:.2e} "
                  f"{(time.monotonic() - t0) / 10:.2f} s/step T={ids.shape[1]} cand={len(cand)}", flush=True)
            t0 = time.monotonic()
        if time.monotonic() - last_save > args.save_every * 60:
            _save(ckpt, net, opt, step, seen)
            last_save = time.monotonic()
    _save(ckpt, net, opt, step, seen)
    print(f"stopped at step {step} ({seen} examples)", flush=True)


def _save(path: Path, net, opt, step, seen) -> None:
    tmp = path.with_suffix(".tmp")
    state = {k: v for k, v in net.state_dict().items()}
    torch.save({"net": state, "opt": opt.state_dict(), "step": step, "seen": seen}, tmp)
    tmp.replace(path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="models/e5-reader-base")
    ap.add_argument("--out", default="runs/reader")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--head-lr-scale", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save-every", type=float, default=5)
    ap.add_argument("--vocab-examples", type=int, default=40000)
    ap.add_argument("--bf16", action="store_true")
    train(ap.parse_args(argv))


if __name__ == "__main__":
    main()


def ship(checkpoint: Path, base_dir: Path, out_dir: Path, note: dict | None = None) -> Path:
    """Write the trained change as models/e5-reader/: int8 per-row deltas of the body's matrices
    against the converted base, fp16 for everything else the training changed, and reader.json."""
    from safetensors.numpy import load_file, save_file

    base = load_file(str(Path(base_dir) / "base.safetensors"))
    state = torch.load(checkpoint, weights_only=False)["net"]
    vocab = json.loads((Path(checkpoint).parent / "reply_vocab.json").read_text())
    f16 = lambda t: t.detach().float().numpy().astype(np.float16)
    out: dict[str, np.ndarray] = {"pos": f16(state["pos"]), "type_emb": f16(state["type_emb"]), "seg": f16(state["seg"]),
                                  "eln.w": f16(state["eln.weight"]), "eln.b": f16(state["eln.bias"]),
                                  "head_dense.w": f16(state["head_dense.weight"]), "head_dense.b": f16(state["head_dense.bias"]),
                                  "head_ln.w": f16(state["head_ln.weight"]), "head_ln.b": f16(state["head_ln.bias"]),
                                  "head_bias": f16(state["head_bias"]), "out_scale": f16(state["out_scale"].reshape(1)),
                                  "vocab_cut": np.asarray(vocab, dtype=np.int32)}
    i = 0
    while f"layers.{i}.q.weight" in state:
        for p in ("q", "k", "v", "ao", "fi", "fo"):
            delta = state[f"layers.{i}.{p}.weight"].float().numpy() - base[f"l{i}.{p}.w"]
            scale = np.abs(delta).max(1) / 127.0
            scale[scale == 0] = 1.0
            out[f"l{i}.{p}.dq"] = np.clip(np.round(delta / scale[:, None]), -127, 127).astype(np.int8)
            out[f"l{i}.{p}.ds"] = scale.astype(np.float16)
            out[f"l{i}.{p}.b"] = f16(state[f"layers.{i}.{p}.bias"])
        for norm in ("aln", "oln"):
            out[f"l{i}.{norm}.w"] = f16(state[f"layers.{i}.{norm}.weight"])
            out[f"l{i}.{norm}.b"] = f16(state[f"layers.{i}.{norm}.bias"])
        i += 1
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    from avatar.llm.e5_reader import DELTA_FILE

    save_file(out, str(out_dir / DELTA_FILE))
    meta = {"model_type": "e5-reader", "base": "e5-reader-base", "reply_len": layout.REPLY_LEN, **(note or {})}
    (out_dir / "reader.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out_dir
