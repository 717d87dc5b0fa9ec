"""Streaming synthesis for piper voices: the voice's graph cut in three, its audio decoded window by window.

A piper voice is one ONNX graph (VITS): text encoder and duration predictor -> latent frames z_p
(one per 256 samples, with the generator's noise) -> normalising flow -> HiFi-GAN decoder -> audio.
piper runs it whole, so a piece of text is silent until all of it is audio. The flow and the
decoder only look a bounded number of frames left and right, so a window of frames decoded with
that much context on each side gives the same samples as the whole piece: the front runs once per
sentence (about a quarter of the cost), then the first window is audio at once and the rest
follows window by window. The cut is found in the graph's structure (not its node names) once at
load, held in memory, and checked on a calibration sentence: a voice whose windows do not
reproduce its whole synthesis raises GraphSplitError and is spoken whole, as before.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Iterator

import numpy as np

log = logging.getLogger(__name__)

FLOW_CONTEXT = 24     # frames: 4 coupling layers of 4 WaveNet convolutions of width 5 reach 32; from 24 on the
                      # windows match the whole to ~130 dB (measured on en_US-joe-medium), 16 gave 79 dB
DECODER_CONTEXT = 12  # frames: HiFi-GAN's reach (measured: 67 dB at 8, 125 dB at 12, float-exact from 16)
AHEAD = 2             # each window holds this many times the audio before it: it is ready before that audio has
                      # played (flow + decoder run ~13x real time here: a 6x margin for the second window, more
                      # later), and the windows stay few (each decodes its context twice)
MIN_SNR_DB = 60.0     # the load-time check: windows vs whole decode of the same frames
CALIBRATION_TEXT = "Hello, welcome to the museum."  # three windows: enough to see a context that falls short


class GraphSplitError(RuntimeError):
    """The voice's graph has no clean cut (an unknown architecture, or windows that differ from the whole)."""


@dataclass(frozen=True)
class VoiceParts:
    """The three sub-graphs (serialized ONNX) and the tensors at the cuts."""
    front: bytes    # phoneme ids, lengths, scales[, sid] -> latent, mask[, durations]
    flow: bytes     # latent, mask -> frames for the decoder
    decoder: bytes  # frames -> audio
    latent: str
    mask: str
    frames: str
    durations: str | None  # the Ceil tensor: frames per phoneme id (mouth shapes); None if absent


def split_voice(model) -> VoiceParts:
    """Cut a piper voice (onnx.ModelProto) before the flow and before the decoder."""
    graph = model.graph
    produced_by = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    inputs = [i.name for i in graph.input]
    output = graph.output[0].name
    latent = _noisy_latent(graph, consumers)
    outside = _frontier(graph, produced_by, latent, output)
    if len(outside) != 1:
        raise GraphSplitError(f"the flow and decoder read {sorted(outside) or 'nothing'} besides the latent "
                              "frames (a multi-speaker voice or an unknown graph)")
    mask = outside.pop()
    # The decoder takes the flow's output times the mask: the graph's last use of the mask.
    last_mask_use = [node for node in graph.node if mask in node.input][-1]
    frames = last_mask_use.output[0]
    if _frontier(graph, produced_by, frames, output):
        raise GraphSplitError("the decoder reads more than the latent frames")
    ceils = [node.output[0] for node in graph.node if node.op_type == "Ceil"]
    durations = ceils[0] if len(ceils) == 1 else None
    front = _extract(model, produced_by, inputs, [latent, mask] + ([durations] if durations else []))
    flow = _extract(model, produced_by, [latent, mask], [frames])
    decoder = _extract(model, produced_by, [frames], [output])
    return VoiceParts(front, flow, decoder, latent, mask, frames, durations)


def _extract(model, produced_by, inputs: list[str], outputs: list[str]) -> bytes:
    """The sub-graph that computes `outputs` from `inputs` (serialized). Like onnx.utils.Extractor,
    without its shape inference of the whole voice (a third of a second here)."""
    from onnx import TensorProto, helper

    graph = model.graph
    needed, stack, stop = set(), list(outputs), set(inputs)
    while stack:
        name = stack.pop()
        if name in stop or not name:
            continue
        node = produced_by.get(name)
        if node is None:
            continue  # an initializer, or a graph input
        if id(node) not in needed:
            needed.add(id(node))
            stack.extend(node.input)
    nodes = [node for node in graph.node if id(node) in needed]
    used = {name for node in nodes for name in node.input}
    loose = used - stop - {o for node in nodes for o in node.output} - {i.name for i in graph.initializer} - {""}
    if loose:
        raise GraphSplitError(f"the sub-graph for {outputs} also needs {sorted(loose)}")
    known = {v.name: v for v in list(graph.input) + list(graph.output) + list(graph.value_info)}
    typed = lambda name: known.get(name) or helper.make_tensor_value_info(name, TensorProto.FLOAT, None)  # noqa: E731
    sub = helper.make_graph(nodes, "piper-part", [typed(n) for n in inputs], [typed(n) for n in outputs],
                            [i for i in graph.initializer if i.name in used])
    part = helper.make_model(sub, opset_imports=model.opset_import, ir_version=model.ir_version)
    return part.SerializeToString()


def _noisy_latent(graph, consumers) -> str:
    """z_p = m_p + noise * exp(logs_p) * noise_scale: the Add after RandomNormalLike -> Mul -> Mul.
    (The duration predictor's noise goes through one Mul into its own flows.)"""
    found = []
    for node in graph.node:
        if node.op_type != "RandomNormalLike":
            continue
        chain, tensor = [], node.output[0]
        for _ in range(3):
            nxt = consumers.get(tensor, [])
            if len(nxt) != 1:
                break
            chain.append(nxt[0].op_type)
            tensor = nxt[0].output[0]
        if chain == ["Mul", "Mul", "Add"]:
            found.append(tensor)
    if len(found) != 1:
        raise GraphSplitError(f"expected one noisy latent (VITS z_p), found {len(found)}")
    return found[0]


def _frontier(graph, produced_by, cut: str, output: str) -> set[str]:
    """Tensors computed from the graph's inputs that `output` needs other than through `cut`."""
    from_inputs = {i.name for i in graph.input}
    downstream = {cut}
    for node in graph.node:  # ONNX graphs are topologically sorted
        if any(name in from_inputs for name in node.input):
            from_inputs.update(node.output)
        if any(name in downstream for name in node.input):
            downstream.update(node.output)
    initializers = {i.name for i in graph.initializer}
    outside, seen, stack = set(), set(), [output]
    while stack:
        name = stack.pop()
        if name in seen or not name or name in initializers or name == cut:
            continue
        seen.add(name)
        if name not in downstream:
            if name in from_inputs:
                outside.add(name)
            continue  # a constant: the sub-graph carries it
        stack.extend(produced_by[name].input)
    return outside


def windows(total: int, first: int) -> Iterator[tuple[int, int]]:
    """[start, end) frame ranges: `first` frames, then each AHEAD times all frames before it, to `total`."""
    start, size = 0, max(1, first)
    while start < total:
        end = min(total, start + size)
        if total - end < size:  # a short tail joins the window before it
            end = total
        yield start, end
        start, size = end, end * AHEAD


class StreamingVoice:
    """The three sessions of one piper voice; `sentence(ids, scales)` yields its audio window by window."""

    def __init__(self, parts: VoiceParts, make_session, hop: int) -> None:
        self.parts = replace(parts, front=b"", flow=b"", decoder=b"")  # the tensor names; the sessions hold the weights
        self.hop = hop
        self.gain = 1.0  # set from the calibration sentence's peak (piper_engine)
        self._front = make_session("front", parts.front)  # make_session(part's name, its serialized graph)
        self._flow = make_session("flow", parts.flow)
        self._decoder = make_session("decoder", parts.decoder)
        self._front_inputs = {i.name for i in self._front.get_inputs()}

    def front(self, ids: list[int], scales: np.ndarray, sid: int | None = None):
        """Latent frames, mask and frames per phoneme id (None without alignments) of one sentence."""
        feed = {"input": np.array([ids], np.int64), "input_lengths": np.array([len(ids)], np.int64),
                "scales": scales}
        if "sid" in self._front_inputs:
            feed["sid"] = np.array([sid or 0], np.int64)
        out = self._front.run(None, feed)
        durations = out[2].reshape(-1) if len(out) > 2 else None
        return out[0], out[1], durations

    def whole(self, latent: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The audio (float) of all frames in one run, as piper computes it."""
        frames = self._flow.run(None, {self.parts.latent: latent, self.parts.mask: mask})[0]
        return self._decoder.run(None, {self.parts.frames: frames})[0].reshape(-1)

    def stream(self, latent: np.ndarray, mask: np.ndarray, first: int) -> Iterator[np.ndarray]:
        """The same audio as whole(), in windows of frames: `first` frames, then growing."""
        total = latent.shape[2]
        frames = np.empty((1, latent.shape[1], total), np.float32)
        exact_until = 0  # frames[:, :, :exact_until] equal what the whole flow gives
        spans = list(windows(total, first))
        for i, (start, end) in enumerate(spans):
            lo, hi = max(0, start - DECODER_CONTEXT), min(total, end + DECODER_CONTEXT)
            if exact_until < hi:  # from the third window on, the flow runs for two windows at once (half the runs)
                ahead = min(total, spans[i + 1][1] + DECODER_CONTEXT) if 1 < i < len(spans) - 1 else hi
                a = max(0, exact_until - FLOW_CONTEXT)
                b = min(total, ahead + FLOW_CONTEXT)
                out = self._flow.run(None, {self.parts.latent: latent[:, :, a:b], self.parts.mask: mask[:, :, a:b]})[0]
                keep_to = b if b == total else ahead  # the last frames lack right context unless at the end
                frames[:, :, exact_until:keep_to] = out[:, :, exact_until - a:keep_to - a]
                exact_until = keep_to
            audio = self._decoder.run(None, {self.parts.frames: frames[:, :, lo:hi]})[0].reshape(-1)
            yield audio[(start - lo) * self.hop:(end - lo) * self.hop]


def snr_db(reference: np.ndarray, test: np.ndarray) -> float:
    """Signal-to-noise ratio of `test` against `reference` (same length), in dB."""
    reference = reference.astype(np.float64)
    noise = float(np.sum((reference - test.astype(np.float64)) ** 2))
    return float("inf") if noise == 0 else 10 * np.log10(float(np.sum(reference ** 2)) / noise)


def check_windows(voice: StreamingVoice, ids: list[int], scales: np.ndarray, first: int) -> tuple[float, float]:
    """Decode one sentence whole and in windows from the same latent frames: (SNR in dB, peak of the
    whole audio). Raises GraphSplitError when the windows do not reproduce the whole."""
    latent, mask, _ = voice.front(ids, scales)
    whole = voice.whole(latent, mask)
    streamed = np.concatenate(list(voice.stream(latent, mask, first)))
    if streamed.shape != whole.shape:
        raise GraphSplitError(f"windows gave {streamed.size} samples, the whole {whole.size}")
    snr = snr_db(whole, streamed)
    if not snr >= MIN_SNR_DB:
        raise GraphSplitError(f"windows differ from the whole synthesis (SNR {snr:.1f} dB < {MIN_SNR_DB:.0f})")
    return snr, float(np.max(np.abs(whole)))
