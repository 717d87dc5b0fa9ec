"""Text to speech: clause splitting, speech text, piper and espeak-ng voices, visemes."""
from avatar.tts.clause_splitter import ClauseSplitter, split_clauses
from avatar.tts.synthesizer import SpeechChunk, Synthesizer, voice_info
from avatar.tts.voices import VoiceInfo

__all__ = ["ClauseSplitter", "split_clauses", "SpeechChunk", "Synthesizer", "voice_info", "VoiceInfo"]
