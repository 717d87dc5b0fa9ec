"""Microphone and loudspeaker through sounddevice (PortAudio), imported only when a device is asked for."""
from __future__ import annotations

import queue
import threading
from typing import Iterator


from avatar.frames import SAMPLE_RATE, AudioFrame
from avatar.audio.playback_queue import PlaybackQueue, QueuedSink
from avatar.errors import DeviceError
from avatar.trace import now

_NO_DEVICE_HINT = "connect one, pick another with --set audio.input_device=NAME, or use --input/--output WAV files"


def import_sounddevice():
    try:
        import sounddevice
    except OSError:  # the Python package is there, the PortAudio shared library is not
        raise DeviceError("the PortAudio library is missing, so no microphone or speaker can be used",
                          hint="apt-get install libportaudio2  (or use --input/--output WAV files)") from None
    except ImportError:
        raise DeviceError("the sounddevice package is not installed",
                          hint="pip install sounddevice  (or use --input/--output WAV files)") from None
    return sounddevice


def _device(spec: str | int | None):
    if spec in ("", None):
        return None
    return int(spec) if isinstance(spec, str) and spec.isdigit() else spec


def _check_device(sd, device, kind: str) -> None:
    try:
        info = sd.query_devices(device, kind=kind)
    except (ValueError, sd.PortAudioError) as exc:
        what = "microphone" if kind == "input" else "loudspeaker"
        raise DeviceError(f"no {what} found ({device or 'system default'}): {exc}", hint=_NO_DEVICE_HINT) from None
    if not info:
        raise DeviceError(f"no {kind} device found", hint=_NO_DEVICE_HINT)


class MicrophoneSource:
    def __init__(self, device: str | int | None = None, frame_ms: int = 20):
        self._sd = import_sounddevice()
        self._device = _device(device)
        _check_device(self._sd, self._device, "input")
        self.frame = SAMPLE_RATE * frame_ms // 1000
        self._frames: queue.Queue[AudioFrame | None] = queue.Queue(maxsize=500)
        self._captured = 0
        self.overflows = 0  # callbacks that reported lost input (the consumer or the system fell behind)
        self._closed = threading.Event()
        self._stream = None

    def _callback(self, indata, n, time_info, status) -> None:
        if status.input_overflow:
            self.overflows += 1
        # inputBufferAdcTime: when the first sample hit the converter, on PortAudio's clock
        lag = max(0.0, time_info.currentTime - time_info.inputBufferAdcTime) if time_info.inputBufferAdcTime else n / SAMPLE_RATE
        frame = AudioFrame(indata[:, 0].copy(), now() - lag, self._captured / SAMPLE_RATE)
        self._captured += n
        try:
            self._frames.put_nowait(frame)
        except queue.Full:  # the consumer stalled: dropping is better than growing without bound
            pass

    def frames(self) -> Iterator[AudioFrame]:
        sd = self._sd
        try:
            self._stream = sd.InputStream(samplerate=SAMPLE_RATE, channels=1, dtype="int16", blocksize=self.frame,
                                          device=self._device, callback=self._callback)
            self._stream.start()
        except sd.PortAudioError as exc:
            raise DeviceError(f"cannot open the microphone: {exc}", hint=_NO_DEVICE_HINT) from None
        while not self._closed.is_set():
            try:
                frame = self._frames.get(timeout=0.2)
            except queue.Empty:
                continue
            if frame is None:
                break
            yield frame

    def close(self) -> None:
        self._closed.set()
        self._frames.put(None)
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()


class SpeakerSink(QueuedSink):
    def __init__(self, device: str | int | None = None, output_latency_ms: float = 20.0, block_ms: int = 10,
                 buffer_ms: float | None = None):
        """buffer_ms: PortAudio's buffer for the stream (None: the device's low-latency default, which
        runs dry under load through PulseAudio); the callback's time stamps include it either way."""
        sd = import_sounddevice()
        dev = _device(device)
        _check_device(sd, dev, "output")
        self.latency = output_latency_ms / 1000.0
        self.block = SAMPLE_RATE * block_ms // 1000
        self._queue = PlaybackQueue()
        self.underruns = 0  # callbacks that reported the device ran dry before (a gap in what was heard)
        try:
            self._stream = sd.OutputStream(samplerate=SAMPLE_RATE, channels=1, dtype="int16", blocksize=self.block,
                                           device=dev, callback=self._callback,
                                           latency=None if buffer_ms is None else buffer_ms / 1000.0)
            self._stream.start()
        except sd.PortAudioError as exc:
            raise DeviceError(f"cannot open the loudspeaker: {exc}", hint=_NO_DEVICE_HINT) from None

    def _callback(self, outdata, n, time_info, status) -> None:
        if status.output_underflow:
            self.underruns += 1
        ahead = time_info.outputBufferDacTime - time_info.currentTime if time_info.outputBufferDacTime else 0.0
        block, _ = self._queue.take(n, now() + max(0.0, ahead) + self.latency)
        outdata[:, 0] = block

    def close(self) -> None:
        self._stream.stop()
        self._stream.close()
