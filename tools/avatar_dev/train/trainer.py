"""Train the embedded model with the masked-diffusion (MDLM/LLaDA) objective on the reply given the prompt.

One step: encode the prompts once, attach K differently masked copies of each reply (the prompt
cache makes the extra copies cost only the reply tokens), mask each reply token with probability
t ~ U(0, 1], and take the cross-entropy on the masked tokens weighted by 1/t. Examples come from
an endless seeded stream of synthetic venues, so there are no epochs. A checkpoint (model,
optimiser, step, elapsed time) is written every few minutes together with a loadable model folder.

`arch="ar"` trains the autoregressive twin instead (issue 15; avatar/llm/ar_layers.py): the same
layers, tokenizer, example stream, optimiser and schedule, with next-token cross-entropy on the reply.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from tqdm import tqdm

from avatar.answer.prompt import PromptCodec
from avatar.errors import ModelError
from avatar.llm.embedded_model import AvatarMDLM, AvatarMDLMConfig
from avatar.trace import now
from avatar_dev.train import corpus, tokenizer as tokenizer_lib


# sized for a shared 2-core CPU: about an hour of training, a reply decoded in tens of milliseconds
MODEL_SIZES = {"base": dict(hidden_size=128, num_hidden_layers=4, num_attention_heads=4, intermediate_size=384),
               "tiny": dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64),
               # issue 11's size experiment: 0.75x and 1.5x the width and depth of "base"
               "small": dict(hidden_size=96, num_hidden_layers=3, num_attention_heads=4, intermediate_size=288),
               "large": dict(hidden_size=192, num_hidden_layers=6, num_attention_heads=6, intermediate_size=576)}


@dataclass
class TrainOptions:
    out: Path
    steps: int = 100_000
    minutes: float = 60.0
    batch: int = 32
    copies: int = 2                  # differently masked replies per encoded prompt
    lr: float = 2e-3
    warmup: int = 100
    seed: int = 0
    resume: bool = False
    checkpoint_minutes: float = 3.0
    max_answer: int = 48             # the engine's default gen_length
    slack: int = 8                   # <eos> positions after the longest reply of a batch (full length 1 in 5)
    vocab_size: int = 4096
    tokenizer_examples: int = 20000
    size: str = "base"               # a MODEL_SIZES preset
    model: dict | None = None        # further AvatarMDLMConfig overrides
    device: str = ""
    threads: int = 1                 # on a busy shared CPU one thread beats two waiting on each other
    decline_share: float = corpus.DECLINE_SHARE  # unanswerable questions in the training mix
    styled_share: float = corpus.STYLED_SHARE    # examples from venues in other operators' styles (styled.py)
    init: Path | None = None         # start from this model folder's weights and tokenizer (fresh optimiser)
    clock: str = "wall"              # "cpu": `minutes` counts this process's CPU time, fair between runs sharing a CPU
    arch: str = "mdlm"               # "mdlm": the diffusion model; "ar": its autoregressive twin (issue 15)


def batches(codec: PromptCodec, opts: TrainOptions, start_step: int):
    """(prompt_ids, reply_ids) tensors; the stream is seeded by the step, so a resumed run goes on reproducibly."""
    stream = corpus.examples(opts.seed * 1_000_003 + start_step, decline_share=opts.decline_share,
                             styled_share=opts.styled_share)
    rng = random.Random(opts.seed + start_step)
    pad = codec.id["<pad>"]
    while True:
        longest = opts.max_answer
        # a reply longer than the model's answer window (a long week of opening hours) is skipped, not cut
        exs = [e for e in corpus.take(stream, opts.batch) if len(codec.text_ids(e.reply)) + 4 <= longest]
        prompts = [codec.prompt_ids(e.facts, e.history, e.question) for e in exs]
        need = max(len(codec.text_ids(e.reply)) + 4 for e in exs)
        # padding every reply to the full window would spend half the compute on <eos>
        length = longest if rng.random() < 0.2 else min(longest, need + rng.randint(1, opts.slack))
        width = max(map(len, prompts))
        p = torch.tensor([x + [pad] * (width - len(x)) for x in prompts])
        r = torch.tensor([codec.reply_ids(e.lang, e.mood, e.reply, length) for e in exs])
        yield p, r


def diffusion_loss(model: AvatarMDLM, prompt: torch.Tensor, reply: torch.Tensor, copies: int) -> torch.Tensor:
    cache = model.encode_prompt(prompt).repeat(copies)
    reply = reply.repeat_interleave(copies, dim=0)
    n = reply.shape[0]
    # stratified t over the batch: lower-variance estimate of the same expectation
    t = ((torch.rand(1) + torch.arange(n) / n) % 1.0).clamp_min(1e-3).to(reply.device)
    masked = torch.rand(reply.shape, device=reply.device) < t[:, None]
    noisy = torch.where(masked, model.config.mask_token_id, reply)
    logp = model(noisy, prompt_cache=cache).logits
    nll = -logp.gather(-1, reply[..., None]).squeeze(-1)
    return (nll * masked / t[:, None]).sum() / reply.numel()


def lr_at(progress: float, opts: TrainOptions, step: int) -> float:
    """Linear warmup, then cosine to a tenth; progress is the larger of the step and time fractions."""
    if step < opts.warmup:
        return opts.lr * (step + 1) / opts.warmup
    return opts.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def model_class(arch: str):
    """The model class and its config class for `arch` (mdlm | ar)."""
    if arch == "mdlm":
        return AvatarMDLM, AvatarMDLMConfig
    if arch == "ar":
        from avatar.llm.ar_model import AvatarAR, AvatarARConfig
        return AvatarAR, AvatarARConfig
    raise ModelError(f"train arch {arch!r}: expected mdlm or ar")


def train(opts: TrainOptions) -> dict:
    model_cls, config_cls = model_class(opts.arch)
    device = opts.device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.set_num_threads(opts.threads)
    torch.manual_seed(opts.seed)
    out = Path(opts.out)
    ckpt_path = out / "checkpoint.pt"
    tok_path = out / "model" / "tokenizer.json"
    if opts.resume:
        if not ckpt_path.exists():
            raise ModelError(f"no checkpoint to resume in {out}", hint="train without --resume first")
        from tokenizers import Tokenizer
        tok = Tokenizer.from_file(str(tok_path))
    elif opts.init:
        from tokenizers import Tokenizer
        init = Path(opts.init)
        if not (init / "config.json").exists() or not (init / "tokenizer.json").exists():
            raise ModelError(f"--init {init}: not a model folder (config.json, tokenizer.json)",
                             hint="pass a folder written by avatar train, e.g. models/avatar-mdlm")
        tok = Tokenizer.from_file(str(init / "tokenizer.json"))
        tokenizer_lib.save(tok, out / "model")
    else:
        tok = tokenizer_lib.train_tokenizer(opts.vocab_size, opts.seed, opts.tokenizer_examples)
        tokenizer_lib.save(tok, out / "model")
    codec = PromptCodec(tok)
    if opts.init and not opts.resume:
        model = model_cls.from_pretrained(str(opts.init)).to(device)  # fine-tune: its weights, a fresh optimiser
    else:
        cfg = config_cls(vocab_size=tok.get_vocab_size(), max_answer_len=opts.max_answer,
                               mask_token_id=codec.id["<mask>"], pad_token_id=codec.id["<pad>"],
                               bos_token_id=codec.id["<bos>"], eos_token_id=codec.id["<eos>"],
                               sep_token_id=codec.id["<sep>"], **{**MODEL_SIZES[opts.size], **(opts.model or {})})
        model = model_cls(cfg).to(device)
    optim = torch.optim.AdamW(model.parameters(), lr=opts.lr, betas=(0.9, 0.98), weight_decay=0.01)
    step, elapsed, history = 0, 0.0, []
    if opts.resume:
        state = torch.load(ckpt_path, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        step, elapsed, history = state["step"], state["elapsed"], state["history"]
        torch.set_rng_state(state["torch_rng"])
    data = batches(codec, opts, step)
    if opts.clock not in ("wall", "cpu"):
        raise ModelError(f"train clock {opts.clock!r}: expected wall or cpu")
    clock = time.process_time if opts.clock == "cpu" else now
    t0, last_ckpt = clock() - elapsed, now()
    bar = tqdm(total=opts.steps, initial=step, desc="train", dynamic_ncols=True)
    running = None
    model.train()
    while step < opts.steps and (clock() - t0) < opts.minutes * 60:
        prompt, reply = (x.to(device) for x in next(data))
        for g in optim.param_groups:
            g["lr"] = lr_at(max(step / opts.steps, (clock() - t0) / (opts.minutes * 60)), opts, step)
        if opts.arch == "ar":
            from avatar.llm.ar_layers import ar_loss
            loss = ar_loss(model, prompt, reply)
        else:
            loss = diffusion_loss(model, prompt, reply, opts.copies)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optim.step()
        step += 1
        running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
        bar.update(1)
        bar.set_postfix(loss=f"{running:.3f}", lr=f"{optim.param_groups[0]['lr']:.1e}")
        if step % 25 == 0:
            history.append((step, round(clock() - t0, 1), round(running, 4)))
        if now() - last_ckpt > opts.checkpoint_minutes * 60:
            save_checkpoint(out, model, optim, step, clock() - t0, history, tok_path)
            last_ckpt = now()
    bar.close()
    save_checkpoint(out, model, optim, step, clock() - t0, history, tok_path)
    return {"arch": opts.arch, "steps": step, "seconds": round(clock() - t0, 1), "clock": opts.clock, "loss": running, "history": history,
            "params": sum(p.numel() for p in model.parameters()), "options": {k: str(v) for k, v in asdict(opts).items()}}


def save_checkpoint(out: Path, model: AvatarMDLM, optim, step: int, elapsed: float, history: list, tok_path: Path) -> None:
    """The resumable state plus a model folder (config.json, model.safetensors, tokenizer.json) loadable as is."""
    tmp = out / "checkpoint.pt.tmp"
    torch.save({"model": model.state_dict(), "optim": optim.state_dict(), "step": step, "elapsed": elapsed,
                "history": history, "torch_rng": torch.get_rng_state()}, tmp)
    tmp.replace(out / "checkpoint.pt")  # atomic: a kill mid-write never loses the last checkpoint
    model.save_pretrained(out / "model")
    (out / "model" / "training.txt").write_text(f"step {step}\nseconds {elapsed:.0f}\nloss {history[-1][2] if history else ''}\n")
