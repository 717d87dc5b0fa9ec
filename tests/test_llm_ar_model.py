"""The autoregressive twin (issue 15): causal, a KV cache that changes nothing, the diffusion model's size."""
import torch

from avatar.llm.ar_layers import ar_loss
from avatar.llm.ar_model import AvatarAR, AvatarARConfig
from avatar.llm.embedded_model import AvatarMDLM, AvatarMDLMConfig

SIZE = dict(vocab_size=97, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=48)


def tiny(seed=0):
    torch.manual_seed(seed)
    return AvatarAR(AvatarARConfig(**SIZE)).eval()


def ids(b, t, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(15, 97, (b, t), generator=g)


def test_twin_has_the_diffusion_models_parameters_and_names():
    ar, mdlm = tiny(), AvatarMDLM(AvatarMDLMConfig(**SIZE))
    assert {n: p.shape for n, p in ar.named_parameters()} == {n: p.shape for n, p in mdlm.named_parameters()}


def test_reply_token_never_sees_later_reply_tokens():
    model = tiny()
    x = ids(1, 30)
    y = x.clone()
    y[:, 25:] = ids(1, 5, seed=7)
    with torch.no_grad():
        a, b = model(x, prompt_len=20).logits, model(y, prompt_len=20).logits
    # reply position i predicts token i from tokens < i: positions up to 25 are unchanged
    torch.testing.assert_close(a[:, :6], b[:, :6])
    assert not torch.allclose(a[:, 6:], b[:, 6:])


def test_prompt_is_causal_too():
    model = tiny()
    x = ids(1, 30)
    y = x.clone()
    y[:, 15:20] = ids(1, 5, seed=9)
    with torch.no_grad():
        a, b = model.encode_prompt(x[:, :20]), model.encode_prompt(y[:, :20])
    torch.testing.assert_close(a.hidden[:, :15], b.hidden[:, :15])


def test_kv_cache_one_token_at_a_time_gives_the_whole_pass_logits():
    model = tiny()
    x = ids(1, 30)
    with torch.no_grad():
        full = model(x, prompt_len=20).logits[0]
        cache = model.encode_prompt(x[:, :20])
        past = model.start_reply(cache)
        inputs = model.shifted(x[:, 20:])
        steps = [model._reply_logits(inputs[:, :3], cache, past)[0]]  # a run of given tokens in one pass
        steps += [model._reply_logits(inputs[:, i:i + 1], cache, past)[0] for i in range(3, 10)]
    torch.testing.assert_close(torch.cat(steps), full, rtol=1e-5, atol=1e-5)


def test_padded_prompts_in_a_batch_give_each_rows_own_logits():
    model = tiny()
    a, b = ids(1, 12), ids(1, 18, seed=3)
    reply = ids(2, 6, seed=5)
    padded = torch.cat([torch.cat([a, torch.zeros(1, 6, dtype=torch.long)], 1), b])
    with torch.no_grad():
        both = model(reply, prompt_cache=model.encode_prompt(padded)).logits
        alone = model(reply[:1], prompt_cache=model.encode_prompt(a)).logits
    torch.testing.assert_close(both[:1], alone, rtol=1e-5, atol=1e-5)


def test_loss_counts_the_reply_up_to_its_first_eos():
    model = tiny()
    eos = model.config.eos_token_id
    prompt = ids(2, 10)
    reply = ids(2, 8, seed=4)
    reply[:, 5:] = eos
    other = reply.clone()
    other[:, 6:] = 50  # after the first <eos>: not counted
    with torch.no_grad():
        torch.testing.assert_close(ar_loss(model, prompt, reply), ar_loss(model, prompt, other))
    model.train()
    optim = torch.optim.AdamW(model.parameters(), lr=3e-3)
    first = ar_loss(model, prompt, reply).item()
    for _ in range(30):
        loss = ar_loss(model, prompt, reply)
        optim.zero_grad()
        loss.backward()
        optim.step()
    assert loss.item() < first - 1.0


def test_avatar_train_arch_ar_writes_a_loadable_avatar_ar_folder(tmp_path):
    import json

    from transformers import AutoModel

    from avatar_dev.train.trainer import TrainOptions, train

    opts = TrainOptions(out=tmp_path, steps=12, minutes=10, batch=8, size="tiny", vocab_size=600, lr=3e-3,
                        warmup=5, tokenizer_examples=300, checkpoint_minutes=60, arch="ar")
    result = train(opts)
    assert result["arch"] == "ar" and result["steps"] == 12
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    assert config["model_type"] == "avatar-ar" and config["rope_theta"] == 10000.0
    loaded = AutoModel.from_pretrained(tmp_path / "model")
    assert isinstance(loaded, AvatarAR)
