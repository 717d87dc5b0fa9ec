"""The venue's words as Whisper's prompt and the previous turn's language as a prior (issue 12, item 5).

A fake faster-whisper model records what the recognizer asks of it: the prompt of every decode
(trimmed window and the full-window fallback) and the language it decodes in.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from avatar import config
from avatar.asr.whisper_priors import choose_language, prompt_tokens

SPECIAL = ["startoftranscript", "startofprev", "transcribe", "endoftext", "de", "en"]
TIMESTAMP_BEGIN = 50000  # <|0.00|>: text tokens lie below it


class FakeTokenizer:
    """Words of up to 4 letters (and commas) are one token, longer words two ("Gard", "##erobe");
    special tokens first, pieces get ids from 1000 on."""

    def __init__(self):
        self.special = {f"<|{name}|>": i for i, name in enumerate(SPECIAL)} | {"<|0.00|>": TIMESTAMP_BEGIN}
        self.vocab: dict[str, int] = {}

    def token_to_id(self, token):
        return self.special.get(token)

    def _pieces(self, text):
        for word in text.replace(",", " , ").split():
            if len(word) <= 4:
                yield word
            else:
                yield word[: len(word) // 2]
                yield "##" + word[len(word) // 2:]

    def encode(self, text, add_special_tokens=False):
        ids = [self.vocab.setdefault(p, 1000 + len(self.vocab)) for p in self._pieces(text)]
        return SimpleNamespace(ids=ids)

    def decode(self, ids):
        pieces = {v: k for k, v in self.vocab.items()}
        text = ""
        for i in ids:
            piece = pieces.get(i, "?")
            text += piece[2:] if piece.startswith("##") else " " + piece
        return text.strip()


@dataclass
class Result:
    sequences_ids: list
    scores: list
    no_speech_prob: float = 0.01


class FakeCT2:
    def __init__(self, tok, probs):
        self.tok, self.probs = tok, probs
        self.prompts: list[list[int]] = []

    def encode(self, features):
        return "encoded"

    def detect_language(self, enc):
        return [list(self.probs.items())]

    def generate(self, enc, prompts, **kw):
        self.prompts.append(list(prompts[0]))
        self.max_length = kw["max_length"]
        return [Result([self.tok.encode(" wo ist die Garderobe").ids], [-0.2])]


class FakeWhisperModel:
    probs = {"<|en|>": 0.6, "<|de|>": 0.3, "<|fr|>": 0.1}

    def __init__(self, folder, **kw):
        self.hf_tokenizer = FakeTokenizer()
        self.model = FakeCT2(self.hf_tokenizer, dict(self.probs))
        self.full_calls: list[dict] = []

    def feature_extractor(self, audio, padding=0):
        return np.zeros((80, len(audio) // 160), np.float32)

    def transcribe(self, audio, **kw):
        self.full_calls.append(kw)
        return [SimpleNamespace(text=" wo ist die Garderobe", no_speech_prob=0.01, avg_logprob=-0.2)], None


@pytest.fixture
def cfg():
    return config.load(sets=["asr.venue_prompt=true", 'asr.venue_prompt_languages=["de", "en"]'], env={})


@pytest.fixture
def make_asr(monkeypatch, tmp_path):
    import faster_whisper

    from avatar.asr.whisper_asr import WhisperASR

    monkeypatch.setattr(faster_whisper, "WhisperModel", FakeWhisperModel)

    def make(cfg, probs=None):
        FakeWhisperModel.probs = probs or {"<|en|>": 0.6, "<|de|>": 0.3, "<|fr|>": 0.1}
        one_model = cfg.with_overrides({"asr.decode_threads": 0})  # the fake is one model (no second copy to load)
        return WhisperASR(one_model.asr, ("de", "en"), model_dir=tmp_path, verify=False)

    return make


def speech(seconds: float) -> np.ndarray:
    rng = np.random.default_rng(1)
    return (rng.standard_normal(int(16000 * seconds)) * 3000).astype(np.int16)


VOCAB = {"de": ["Stadtmuseum Lindenau", "Garderobe", "Führung"], "en": ["Lindenau City Museum", "cloakroom", "tour"]}


def test_the_venue_words_of_the_language_go_before_the_transcript(cfg, make_asr):
    asr = make_asr(cfg)
    asr.set_vocabulary(VOCAB)
    tok = asr.model.hf_tokenizer
    tr = asr.transcribe(speech(3.0), lang="de")
    prompt = asr.model.model.prompts[-1]
    words = tok.encode(" Stadtmuseum Lindenau, Garderobe, Führung").ids
    sot = [tok.special[t] for t in ("<|startoftranscript|>", "<|de|>", "<|transcribe|>")]
    assert prompt == [tok.special["<|startofprev|>"], *words, *sot]
    assert tr.prompt_tokens == len(words) and tr.text == "wo ist die Garderobe"
    assert asr.model.model.max_length > len(prompt)  # the token budget counts after the prompt

    asr.transcribe(speech(3.0), lang="en")  # "tour" is one token: Whisper knows it, no need to prompt it
    assert asr.model.model.prompts[-1][1:-3] == tok.encode(" Lindenau City Museum, cloakroom").ids
    assert asr.prompt_words("en") == "Lindenau City Museum , cloakroom"


def test_no_prompt_when_switched_off_or_for_partials(cfg, make_asr):
    asr = make_asr(cfg.with_overrides({"asr.venue_prompt": False}))
    asr.set_vocabulary(VOCAB)
    asr.transcribe(speech(2.0), lang="de")
    assert asr.model.model.prompts[-1][0] == asr.model.hf_tokenizer.special["<|startoftranscript|>"]

    asr = make_asr(cfg)
    asr.set_vocabulary(VOCAB)
    tr = asr.transcribe(speech(2.0), lang="de", partial=True)  # barge-in words must not turn into venue words
    assert asr.model.model.prompts[-1][0] == asr.model.hf_tokenizer.special["<|startoftranscript|>"]
    assert tr.prompt_tokens == 0


def test_full_window_fallback_gets_the_same_prompt_as_token_ids(cfg, make_asr):
    asr = make_asr(cfg.with_overrides({"asr.trim_window": False}))
    asr.set_vocabulary(VOCAB)
    tr = asr.transcribe(speech(2.0), lang="en")
    kw = asr.model.full_calls[-1]
    assert kw["initial_prompt"] == asr.prompt_ids("en") and kw["language"] == "en"
    assert tr.path == "full" and tr.prompt_tokens == len(asr.prompt_ids("en"))


def test_a_fresh_instance_keeps_the_vocabulary(cfg, make_asr):
    asr = make_asr(cfg)
    asr.set_vocabulary(VOCAB)
    assert asr.renew().prompt_ids("de") == asr.prompt_ids("de") != []


def test_prompt_keeps_whole_words_within_the_cap():
    tok = FakeTokenizer()
    encode = lambda text: tok.encode(text).ids
    words = ["Lindenau", "Garderobe", "Garderobe", " ", "Audio guide", "x", "tour"]
    # one-token words ("x", "tour") are left out: Whisper knows them, and prompted they pull other speech
    assert tok.decode(prompt_tokens(encode, words, 223)) == "Lindenau , Garderobe , Audio guide"
    ids = prompt_tokens(encode, words, 5)
    assert tok.decode(ids) == "Lindenau , Garderobe"  # "Audio guide" would need 5 more tokens
    assert prompt_tokens(encode, words, 0) == []
    assert len(prompt_tokens(encode, [f"word{i:04d}" for i in range(400)], 999)) <= 223


@pytest.mark.parametrize("prior,ms,probs,expect", [
    ("de", 1200, {"<|en|>": 0.6, "<|de|>": 0.3}, ("de", True)),    # short and unsure: the previous turn's
    ("de", 3500, {"<|en|>": 0.6, "<|de|>": 0.3}, ("en", False)),   # long: Whisper decides
    ("de", 1200, {"<|en|>": 0.97, "<|de|>": 0.02}, ("en", False)),  # sure: Whisper decides
    (None, 1200, {"<|en|>": 0.6, "<|de|>": 0.3}, ("en", False)),   # first turn: no prior
    ("en", 1200, {"<|en|>": 0.6, "<|de|>": 0.3}, ("en", False)),   # agrees
    ("fr", 1200, {"<|en|>": 0.6, "<|de|>": 0.3}, ("en", False)),   # not a kiosk language
])
def test_language_prior_for_short_unsure_utterances(prior, ms, probs, expect):
    lang, prob, used = choose_language(probs, ("de", "en"), prior, ms, 2000, 0.9)
    assert (lang, used) == expect
    assert prob == pytest.approx(probs[f"<|{lang}|>"] / (probs["<|en|>"] + probs["<|de|>"]))


def test_transcribe_applies_the_prior_and_says_so(cfg, make_asr):
    asr = make_asr(cfg, {"<|en|>": 0.55, "<|de|>": 0.45})
    tr = asr.transcribe(speech(1.0), prior="de")
    assert tr.lang == "de" and tr.prior_used and tr.lang_prob == pytest.approx(0.45)
    assert asr.model.model.prompts[-1][-2] == asr.model.hf_tokenizer.special["<|de|>"]
    assert asr.transcribe(speech(3.0), prior="de").lang == "en"  # long enough to trust Whisper
    assert asr.transcribe(speech(1.0)).lang == "en"
    off = make_asr(cfg.with_overrides({"asr.language_prior": False}), {"<|en|>": 0.55, "<|de|>": 0.45})
    assert off.transcribe(speech(1.0), prior="de").lang == "en"


def test_switched_on_only_german_passes_are_prompted_by_default(make_asr):
    """Real English off-venue speech lost 5 points with the venue's words (docs/PERF.md), so when the
    prompt is switched on, English passes get none unless asr.venue_prompt_languages names English."""
    off = make_asr(config.load(env={}))
    off.set_vocabulary(VOCAB)
    assert off.prompt_ids("de") == [] and off.prompt_ids("en") == []  # off by default
    asr = make_asr(config.load(sets=["asr.venue_prompt=true"], env={}))
    asr.set_vocabulary(VOCAB)
    assert asr.prompt_ids("de") and asr.prompt_ids("en") == []
    tr = asr.transcribe(speech(3.0), lang="en")
    assert tr.prompt_tokens == 0 and asr.model.model.prompts[-1][0] != asr.model.hf_tokenizer.special["<|startofprev|>"]
    assert asr.transcribe(speech(3.0), lang="de").prompt_tokens > 0
