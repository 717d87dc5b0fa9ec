"""A few training steps of a tiny model: the loss falls, a checkpoint resumes, the folder loads."""
import pytest
import torch
from transformers import AutoModel

from avatar.answer.prompt import PromptCodec
from avatar.llm.embedded_model import AvatarMDLM
from avatar_dev.train.trainer import TrainOptions, batches, diffusion_loss, train


def tiny_options(out, steps, resume=False):
    return TrainOptions(out=out, steps=steps, minutes=10, batch=8, size="tiny", vocab_size=600, lr=3e-3,
                        warmup=5, tokenizer_examples=300, resume=resume, checkpoint_minutes=60)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    result = train(tiny_options(out, 40))
    return out, result


def fixed_loss(model, codec, opts):
    torch.manual_seed(123)
    prompt, reply = next(batches(codec, opts, 10_000))
    with torch.no_grad():
        return sum(diffusion_loss(model, prompt, reply, 2).item() for _ in range(4)) / 4


def test_loss_falls_on_held_fixed_batch(run):
    out, result = run
    from tokenizers import Tokenizer
    codec = PromptCodec(Tokenizer.from_file(str(out / "model" / "tokenizer.json")))
    trained = AutoModel.from_pretrained(out / "model").eval()
    torch.manual_seed(0)
    fresh = AvatarMDLM(trained.config).eval()
    opts = tiny_options(out, 40)
    assert result["steps"] == 40
    assert fixed_loss(trained, codec, opts) < fixed_loss(fresh, codec, opts) - 0.5


def test_checkpoint_resumes_where_it_stopped(run):
    out, _ = run
    result = train(tiny_options(out, 43, resume=True))
    assert result["steps"] == 43
    state = torch.load(out / "checkpoint.pt", weights_only=False)
    assert state["step"] == 43


def test_saved_folder_loads_with_the_engine_loader_and_decodes(run):
    out, _ = run
    from avatar.llm.loader import load_model

    lm = load_model(out / "model")
    assert lm.family.name == "avatar-mdlm"
    codec = PromptCodec(lm.tokenizer)
    prompt = codec.prompt_ids(["Der Eintritt kostet 5 Euro."], [], "Was kostet der Eintritt?")
    result = lm.generate(prompt, lm.default_options(gen_length=16, block_length=16))
    assert result.steps >= 1 and len(result.answer_ids) == 16


def test_tokenizer_has_the_record_tokens_and_splits_digits(run):
    out, _ = run
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(out / "model" / "tokenizer.json"))
    for t in ["<mask>", "<eos>", "<sep>", "<de>", "<en>", "<info>", "<sorry>", "<fact>"]:
        assert tok.token_to_id(t) is not None
    pieces = tok.encode("18:30 Uhr", add_special_tokens=False).tokens
    assert {"1", "8", "3", "0"} <= set(pieces)


def test_resume_without_checkpoint_is_a_model_error(tmp_path):
    from avatar.errors import ModelError
    with pytest.raises(ModelError):
        train(tiny_options(tmp_path, 2, resume=True))
