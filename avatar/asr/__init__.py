"""Speech recognition: Whisper (faster-whisper) restricted to the kiosk's languages."""
from avatar.asr.transcript import Transcript

__all__ = ["Transcript", "WhisperASR"]


def __getattr__(name: str):
    if name == "WhisperASR":  # faster-whisper is heavy: import it only when a recognizer is made
        from avatar.asr.whisper_asr import WhisperASR

        return WhisperASR
    raise AttributeError(name)
