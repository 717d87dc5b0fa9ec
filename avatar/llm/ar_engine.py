"""Greedy left-to-right decoding of the autoregressive twin (issue 15), with a KV cache.

The same contract as the diffusion decode loop (engine.decode): an answer of mask tokens (to
decode) and fixed tokens, groups that a stop token ends, the same options (banned ids, logit bias,
repetition guard, temperature), committed blocks yielded as they are final, a DecodeSummary at the
end. So DiffusionLM.generate/infill, and the answerer with all its checks, run on the twin unchanged.

The prompt is encoded once; then each forward pass feeds the tokens since the last pass (a run of
fixed tokens goes in one pass) and predicts the next masked position from the last of them. A
stop token fills the rest of its group, so the reply ends there without further passes. Unmasking
order (`order`) means nothing left to right: a variant differs only by its seed when sampling.
"""
from __future__ import annotations

from typing import Generator, Sequence

import numpy as np

from avatar.cancel import NEVER, CancelToken
from avatar.llm.engine import (Block, BlockCloser, DecodeOptions, DecodeSummary, DecodingLM, StepObserver,
                               _confidence, check_budget, decode_inputs, end_stopped_groups, sample)
from avatar.llm.forward_pass import as_numpy
from avatar.trace import now


def decode(lm: DecodingLM, prompt_ids: Sequence[int] | np.ndarray, options: DecodeOptions, *,
           answer: Sequence[int] | None = None, groups: Sequence[tuple[int, int]] | None = None,
           stop_ids: Sequence[int] | None = None, cancel: CancelToken = NEVER,
           on_step: StepObserver | None = None) -> Generator[Block, None, DecodeSummary]:
    t0 = now()
    model, fwd, mask_id = lm.model, lm.forward, lm.mask_token_id
    prompt, x, groups, stop_ids, is_stop, banned, bias_ids, bias_values, gen = decode_inputs(
        lm, prompt_ids, options, answer, groups, stop_ids)
    n = x.shape[1]
    with fwd.no_grad():
        cache = model.encode_prompt(fwd.to_model(prompt))
    past = model.start_reply(cache)
    fed = 0  # answer positions whose input (the token before them, <bos> first) the cache holds
    steps, closer = 0, BlockCloser(lm, groups, is_stop, stop_ids[0], options.repetition_guard, t0)
    committed_conf = np.ones(n, dtype=np.float32)

    for b, start in enumerate(range(0, n, options.block_length)):
        end = min(start + options.block_length, n)
        for i in range(start, end):
            if int(x[0, i]) != mask_id:
                continue  # fixed or already filled: it is fed with the next pass
            cancel.raise_if_cancelled()
            check_budget(options, t0, steps)
            inputs = np.concatenate([[[model.config.bos_token_id]], x[:, :-1]], axis=1)
            with fwd.no_grad():
                raw = model._reply_logits(fwd.to_model(inputs[:, fed:i + 1]), cache, past)[0, -1:]
            logits = np.array(as_numpy(raw), dtype=np.float32)  # a copy: banned ids are set in place
            fed = i + 1
            steps += 1
            if bias_ids.size:
                logits[:, bias_ids] += bias_values
            logits[:, banned] = -np.inf
            predicted = sample(logits, options.temperature, gen)
            x[0, i] = predicted[0]
            committed_conf[i] = _confidence(logits, predicted, options.confidence)[0]
            if is_stop[predicted[0]]:  # the group ends here: its masked rest becomes the stop token
                end_stopped_groups(x, [i], groups, mask_id)
            if on_step is not None:
                on_step(b, steps, x[0].copy())

        block = closer.close(x, b, start, end, steps)
        yield block
        if block.last:
            break
    return DecodeSummary(x[0], steps, "exact", 1, closer.stopped, committed_conf.tolist())
