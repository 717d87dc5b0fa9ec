"""Speech to text with faster-whisper (CTranslate2, int8) on the multilingual Whisper model.

The fast path encodes only the utterance: log-Mel features of the speech plus `pad_frames` of
silence, instead of the 30 s window Whisper was trained on (the encoder cost grows with the
window: ~600 frames instead of 3000). Greedy decoding follows, with timestamp tokens (they make
the decoder stop where the speech ends instead of repeating it into the padding) and a token
budget bounded by the audio length. A transcript that still looks wrong (a repetition loop, no end
token) is decoded again the normal way, on the full window. Language ID is Whisper's, restricted
to the kiosk's languages.

Two priors help it with the words of a kiosk (docs/PERF.md, "Venue words"): the venue's names and
keywords, per language, go before the transcript as Whisper's prompt (`<|startofprev|> words
<|startoftranscript|>`: what faster-whisper builds from `hotwords` or `initial_prompt`), capped to
`asr.prompt_max_tokens`; and for a short utterance whose language Whisper is unsure of, the
language of the previous turn wins (`asr.language_prior`). Both are decided without the model, in
avatar/asr/whisper_priors.py.

Incremental recognition (`asr.incremental`, avatar/asr/incremental.py) asks two more things of a
pass: `context`, the words already confirmed, go into the prompt after the venue's words (the pass
then transcribes only the audio after them), and `words=True` aligns each word of the result to
the audio (cross-attention, faster-whisper's `find_alignment`) so the confirmed audio can be cut
at a word boundary.

The decoder steps run on a copy of the model with `asr.decode_threads` threads (one), the encoder on
`asr.threads` (two): each is fastest so (`_decoding_model`).
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Mapping, Sequence

import numpy as np

from avatar.asr import assets
from avatar.asr.transcript import Transcript, Word
from avatar.asr.transcript_checks import cut_loop, logprob_doubt, normalize, settle_repeats, why_dropped
from avatar.asr.whisper_priors import choose_language, prompt_tokens
from avatar.cancel import NEVER, CancelToken
from avatar.errors import ModelError
from avatar.frames import SAMPLE_RATE
from avatar.settings import Asr
from avatar.trace import TRACER, Tracer, now

log = logging.getLogger(__name__)

HOP = 160                      # samples per feature frame (10 ms)
MAX_FRAMES = 3000              # Whisper's 30 s window
TOKENS_PER_SECOND = 10         # tokens (words and timestamps) per second of audio a pass may produce, after a
                               # fixed 10: above it means a loop (the fastest of the project's 206 clips needs 6.6)
CONTEXT_LIMIT = 448            # Whisper's text context: prompt and transcript together
FALLBACK_TEMPERATURES = (0.0, 0.4, 0.8)  # the full-window retry may sample to escape a loop, a few times at most
PROMPT_LIMIT = 223             # Whisper's own cap on <|startofprev|> tokens (whisper_priors.prompt_tokens too)
PLAIN_MIN_WORDS_PER_S = 1.0    # a plain transcript with fewer words per second of audio is decoded again with timestamps
PLAIN_SLACK_S = 1.0            # ... not counting this much of the audio (pre-roll, trailing quiet, a slow start)
CONTEXT_TOKENS = 96            # confirmed words given as context: the last this many tokens


class WhisperASR:
    incremental_capable = True  # transcribe() takes context= and words= (avatar/asr/incremental.py)

    def __init__(self, cfg: Asr, languages: Sequence[str] = ("de", "en"), tracer: Tracer | None = None,
                 model_dir=None, verify: bool = True):
        self.cfg = cfg
        self.languages = tuple(languages) or ("de", "en")
        self.tracer = tracer or TRACER  # sub-spans of the ASR stage land in the program's trace
        self._lock = threading.Lock()  # one utterance at a time: two would only fight over the cores
        if model_dir is not None and verify:  # a named model is verified by whisper_model_dir, a folder here
            from avatar.integrity import check_model

            check_model(model_dir)
        folder = model_dir or assets.whisper_model_dir(cfg.model)
        self.model_dir = folder
        from avatar.sysmem import bound_onednn_cache

        bound_onednn_cache()  # each new utterance length makes encoder primitives: keep a few, not 1,024
        try:
            from faster_whisper import WhisperModel

            self.model = WhisperModel(str(folder), device="cpu", compute_type=cfg.compute_type,
                                      cpu_threads=cfg.threads, num_workers=1)
            self._decoder, self._aligner = self._decoding_model(folder, cfg)
        except (RuntimeError, ValueError, OSError) as exc:
            raise ModelError(f"cannot load the Whisper model from {folder}: {exc}",
                             hint="run `avatar models assemble` to rebuild it from the installed packages") from None
        tok = self.model.hf_tokenizer
        self._ids = {name: tok.token_to_id(f"<|{name}|>") for name in
                     ("startoftranscript", "startofprev", "transcribe", "endoftext", *self.languages)}
        self._timestamp_begin = tok.token_to_id("<|0.00|>")
        self._no_timestamps = tok.token_to_id("<|notimestamps|>")
        if any(v is None for v in self._ids.values()) or self._timestamp_begin is None:
            raise ModelError(f"the model in {folder} is not a multilingual Whisper model",
                             hint="use whisper-base or whisper-small (multilingual), not an .en model")
        self.vocabulary: dict[str, tuple[str, ...]] = {}
        self._prompts: dict[str, list[int]] = {}
        self.prompting = True  # False: no venue prompt although words were given (benches compare both)
        self._word_tokenizers: dict[str, Any] = {}

    def _decoding_model(self, folder, cfg):
        """The model the decoder steps run on (language detection, greedy decoding, word alignment):
        the encoder's own, or a second copy on `asr.decode_threads` threads. One decode step is a
        few small matrix products for one token, where a second thread costs more in handing work
        over than it saves: on the 2-core box the same tokens came 1.7-1.8x faster on one thread
        (decode median of short English questions 89 -> 51 ms, of long German ones 295 -> 161 ms),
        while the encoder, a few large products, is 1.2-1.8x faster on two (docs/PERF.md, "The
        decoder on one thread"). CTranslate2 fixes a model's threads when it loads: the copy costs
        ~145 MB. faster-whisper's own transcribe() (the full-window fallback) keeps the encoder's."""
        threads = cfg.decode_threads
        if threads <= 0 or threads == cfg.threads:
            return self.model.model, self.model
        import copy

        import ctranslate2

        decoder = ctranslate2.models.Whisper(str(folder), device="cpu", compute_type=cfg.compute_type,
                                             intra_threads=threads, inter_threads=1)
        aligner = copy.copy(self.model)  # faster-whisper's word alignment, run on the decoding model
        aligner.model = decoder
        return decoder, aligner

    # -- public -------------------------------------------------------------------------------------
    def renew(self) -> "WhisperASR":
        """A fresh instance with its own model and lock (the watchdog's replacement for a hung one)."""
        fresh = WhisperASR(self.cfg, self.languages, self.tracer, model_dir=self.model_dir, verify=False)
        fresh.set_vocabulary(self.vocabulary)
        return fresh

    def set_vocabulary(self, words: Mapping[str, Sequence[str]]) -> None:
        """The venue's words per language (names first, most important first): the prompt of every
        final pass in that language, as many whole words as fit in `asr.prompt_max_tokens`, for the
        languages of `asr.venue_prompt_languages`. Nothing is prompted when `asr.venue_prompt` is off."""
        self.vocabulary = {lang: tuple(w) for lang, w in words.items() if lang in self.languages}
        limit = int(self.cfg.prompt_max_tokens) if self.cfg.venue_prompt else 0
        prompted = set(self.cfg.venue_prompt_languages)
        encode = lambda text: self.model.hf_tokenizer.encode(text, add_special_tokens=False).ids
        self._prompts = {lang: prompt_tokens(encode, w, limit if lang in prompted else 0)
                         for lang, w in self.vocabulary.items()}

    def prompt_words(self, lang: str) -> str:
        """The prompt of `lang` as text (for logs and benches)."""
        return self.model.hf_tokenizer.decode(self._prompts.get(lang, [])).strip()

    def prompt_ids(self, lang: str) -> list[int]:
        """The prompt tokens (without <|startofprev|>) a final pass in `lang` decodes after."""
        return self._prompts.get(lang, []) if self.prompting else []

    def warmup(self) -> None:
        """Run every code path once so the first visitor does not pay for lazy initialisation."""
        rng = np.random.default_rng(0)
        self.transcribe((rng.standard_normal(SAMPLE_RATE) * 300).astype(np.int16))

    def transcribe(self, pcm: np.ndarray, lang: str | None = None, partial: bool = False,
                   cancel: CancelToken = NEVER, prior: str | None = None, context: str = "",
                   words: bool = False) -> Transcript:
        """`lang` forces the language; `prior` (the previous turn's language) decides only for a
        short utterance Whisper is unsure of (`asr.prior_max_ms`, `asr.prior_below_prob`).

        `context`: the text said before `pcm` (the confirmed words of an incremental pass), as
        prompt. A final pass with context that looks wrong is not retried on the full window:
        it comes back with `fallback` set, and the caller decodes the whole utterance instead.
        `words`: also return each word's start and end (seconds from the start of `pcm`)."""
        t0 = now()
        audio = _as_float(pcm)
        if lang is not None and lang not in self.languages:
            lang = None
        if prior not in self.languages or not self.cfg.language_prior:
            prior = None
        if audio.size < SAMPLE_RATE // 10 or not np.any(audio):
            return Transcript("", lang or self.languages[0], 0.0, "empty", (now() - t0) * 1000.0, path="none")
        with self._lock:
            waited = now()
            if waited - t0 > 0.001:  # another pass held the model (a partial that was still encoding)
                self.tracer.record("asr.wait", t0, waited, track="asr", partial=partial)
            cancel.raise_if_cancelled()
            fits = audio.size <= (MAX_FRAMES - self.cfg.pad_frames) * HOP
            if partial and not fits and not context:  # a partial transcript is about the latest words: the window's last 24 s
                audio = audio[audio.size - (MAX_FRAMES - self.cfg.pad_frames) * HOP:]
                fits = True
            if context and not fits:
                result = {"text": "", "lang": lang or self.languages[0], "lang_prob": 0.0, "path": "tail",
                          "no_speech_prob": 0.0, "avg_logprob": 0.0, "fallback": "too_long"}
            elif (self.cfg.trim_window or partial or context) and fits:
                result = self._decode_window(audio, lang, partial, cancel, prior, context, words)
                if context and not partial and result.get("suspect"):
                    result["fallback"] = "suspect"  # the caller decodes the whole utterance instead
                elif not partial and result.get("suspect"):
                    # the visitor's words stay out of the log, at every level: how long the text was is enough
                    log.info("trimmed-window transcript looks wrong (%d words): decoding the full window",
                             len(result["text"].split()))
                    result = {**self._decode_full(audio, result["lang"], result["lang_prob"], cancel),
                              "prior_used": result.get("prior_used", False)}
            elif not fits:  # longer than one window: Whisper drops words near a window's end
                result = self._decode_pieces(audio, lang, cancel, prior)
            else:
                result = self._decode_full(audio, lang, None, cancel, prior)
        tr = _transcript(result, audio)
        tr.ms = (now() - t0) * 1000.0
        return tr

    # -- decoding ---------------------------------------------------------------------------------------
    def _decode_window(self, audio: np.ndarray, lang: str | None, partial: bool, cancel: CancelToken,
                       prior: str | None = None, context: str = "", words: bool = False) -> dict:
        speech = audio[: (MAX_FRAMES - self.cfg.pad_frames) * HOP]  # the window never exceeds 30 s
        enc = self._encode(speech, partial)
        cancel.raise_if_cancelled()
        seconds = speech.size / SAMPLE_RATE
        lang, lang_prob, prior_used = self._language(enc, lang, prior, seconds)
        cancel.raise_if_cancelled()
        result = self._decode_encoded(enc, speech, lang, lang_prob, prior_used, partial, cancel, context, words)
        doubted = "suspect" if result["suspect"] else _transcript(result, speech).dropped
        if prior_used and not (partial or context) and doubted not in ("", "empty"):
            # the previous turn's language made an unsure but clear utterance unreadable ("what time
            # is it" in noise, after a German turn, decoded as German: dropped as doubted, or a loop
            # that would cost a decode of the whole 30 s window in that language): Whisper's own pick
            # decides, on the same encoding, and is kept when it is not doubted too
            with self.tracer.span("asr.prior_undone", track="asr", prior=prior, dropped=doubted) as info:
                own_lang, own_prob, _ = self._language(enc, None, None, seconds)
                own = self._decode_encoded(enc, speech, own_lang, own_prob, False, partial, cancel, context, words)
                info["kept"] = not (own["suspect"] or _transcript(own, speech).dropped)
            if info["kept"]:
                result = own
        return result

    def _decode_encoded(self, enc, speech: np.ndarray, lang: str, lang_prob: float, prior_used: bool, partial: bool,
                        cancel: CancelToken, context: str, words: bool, plain_ok: bool = True) -> dict:
        """One greedy decode of the encoded `speech` in `lang` (the fast path's second half);
        `plain_ok=False`: with timestamp tokens whatever `_plain_decode` says."""
        # with timestamps the decoder marks where the speech ends and stops there; without them it
        # often repeats the utterance into the padding ("Next Next Next ...")
        prompt = [self._ids["startoftranscript"], self._ids[lang], self._ids["transcribe"]]
        plain = plain_ok and self._plain_decode(lang, speech.size / SAMPLE_RATE, partial, context)
        if plain:
            prompt.append(self._no_timestamps)
        # the venue's words as the "previous text" (final passes only: a partial's words decide
        # barge-ins and backchannels, where a prompt would put venue words into a "mhm")
        venue = [] if partial else self.prompt_ids(lang)
        before = self.context_ids(context, PROMPT_LIMIT - len(venue)) if context else []
        if venue or before:
            prompt = [self._ids["startofprev"], *venue, *before, *prompt]
        budget = token_budget(speech.size / SAMPLE_RATE, len(prompt))
        with self.tracer.span("asr.decode", track="asr", partial=partial, prompt_tokens=len(venue),
                              context_tokens=len(before)) as info:
            res = self._decoder.generate(enc, [prompt], beam_size=1, max_length=max_length(len(prompt), budget),
                                         return_scores=True, return_no_speech_prob=True,
                                         suppress_blank=True, suppress_tokens=[-1])[0]
            ids = res.sequences_ids[0]
            info["tokens"] = len(ids)
            info["plain"] = plain  # without timestamp tokens (asr.plain_decode_*)
        text_ids = [i for i in ids if i < self._timestamp_begin]
        stamps = [i for i in ids if i >= self._timestamp_begin]
        covered = (max(stamps) - self._timestamp_begin) * 0.02 if stamps else 0.0  # where the words end
        text = self.model.hf_tokenizer.decode(text_ids).strip()
        truncated = len(ids) >= budget  # ran out of budget without an end token
        text, looped = settle_repeats(text)
        suspect = truncated or looped
        why = plain and ("suspect" if suspect else plain_doubt(text, speech.size / SAMPLE_RATE)
                         or logprob_doubt(float(res.no_speech_prob), float(res.scores[0])))
        if why:
            # without timestamps Whisper sometimes ends after the first sentence ("Lock the front
            # door." of three commands), says nothing of a short word or says it twice; and its mean
            # log probability lacks the sure timestamp tokens, so an unsure transcript would be
            # dropped where the pass with them keeps it: in each case the pass with them decides
            self.tracer.instant("asr.plain_redone", track="asr", why=why)
            return self._decode_encoded(enc, speech, lang, lang_prob, prior_used, partial, cancel, context, words,
                                        plain_ok=False)
        if partial and suspect:
            text = cut_loop(text)
        aligned: list[Word] = []
        if words and text and not looped:  # the words kept (one copy of a repeated utterance), aligned
            cancel.raise_if_cancelled()
            kept = text_ids if self.model.hf_tokenizer.decode(text_ids).strip() == text else \
                self.model.hf_tokenizer.encode(" " + text, add_special_tokens=False).ids
            aligned = self._align(enc, lang, kept, speech.size // HOP, partial)
        return {"text": text, "lang": lang, "lang_prob": lang_prob,
                "path": ("partial" if partial else "tail") if context else ("partial" if partial else "trimmed"),
                "no_speech_prob": float(res.no_speech_prob), "avg_logprob": float(res.scores[0]), "suspect": suspect,
                "prior_used": prior_used, "prompt_tokens": len(venue), "words": aligned, "covered_s": covered}

    def _plain_decode(self, lang: str, seconds: float, partial: bool, context: str) -> bool:
        """Whether this pass decodes without timestamp tokens: a final pass over a short utterance in
        a language of `asr.plain_decode_languages` (two tokens fewer to decode: short English ASR -18 ms
        offline, words the same; docs/PERF.md). Partial and tail passes keep them: their
        end timestamp says where the words stop (`covered_s`), which the tail check needs."""
        return (not partial and not context and lang in self.cfg.plain_decode_languages
                and seconds * 1000 < self.cfg.plain_decode_max_ms)

    def context_ids(self, context: str, limit: int) -> list[int]:
        """The last tokens of `context` (at most CONTEXT_TOKENS and `limit`), cut at a word start."""
        ids = self.model.hf_tokenizer.encode(" " + " ".join(context.split()), add_special_tokens=False).ids
        keep = max(0, min(CONTEXT_TOKENS, limit))
        if len(ids) <= keep:
            return ids
        ids = ids[len(ids) - keep:]
        tok = self.model.hf_tokenizer
        while ids and not tok.decode(ids[:1]).startswith(" "):  # not half a word
            ids = ids[1:]
        return ids

    def _align(self, enc, lang: str, text_ids: list[int], frames: int, partial: bool) -> list[Word]:
        """Each word of `text_ids` with its start and end in seconds (faster-whisper's alignment
        of the decoder's cross-attention to the encoder frames)."""
        tok = self._word_tokenizers.get(lang)
        if tok is None:
            from faster_whisper.tokenizer import Tokenizer

            tok = self._word_tokenizers[lang] = Tokenizer(self.model.hf_tokenizer, True, "transcribe", lang)
        with self.tracer.span("asr.align", track="asr", partial=partial) as info:
            found = self._aligner.find_alignment(tok, [list(text_ids)], enc, frames)[0]
            info["words"] = len(found)
        out = []
        for w in found:
            text = w["word"].strip()
            if text:
                out.append(Word(text, round(float(w["start"]), 3), round(float(w["end"]), 3),
                                round(float(w.get("probability", 1.0)), 3)))
        return out

    def _decode_full(self, audio: np.ndarray, lang: str | None, lang_prob: float | None, cancel: CancelToken,
                     prior: str | None = None) -> dict:
        """faster-whisper's own transcribe(): 30 s window, temperature fallback; slow but robust."""
        prior_used = False
        if lang is None:  # the trimmed window is enough to tell German from English
            lang, lang_prob, prior_used = self._detect(audio, prior)
            cancel.raise_if_cancelled()
        venue = self.prompt_ids(lang)
        prompt_len = 4 + len(venue) + (1 if venue else 0)  # what faster-whisper puts before the transcript
        budget = token_budget(audio.size / SAMPLE_RATE, prompt_len, cap=200)
        with self.tracer.span("asr.full", track="asr", prompt_tokens=len(venue)) as info:
            # token ids as initial_prompt: the same <|startofprev|> prefix as the trimmed path
            segments, _ = self.model.transcribe(
                audio, language=lang, beam_size=max(1, self.cfg.beam_size), without_timestamps=True,
                condition_on_previous_text=False, vad_filter=False, temperature=FALLBACK_TEMPERATURES,
                max_new_tokens=max_length(prompt_len, budget) - prompt_len, initial_prompt=list(venue) or None)
            segments = list(segments)
            info["segments"] = len(segments)
        text = " ".join(s.text.strip() for s in segments).strip()
        no_speech = max((s.no_speech_prob for s in segments), default=1.0)
        logprob = float(np.mean([s.avg_logprob for s in segments])) if segments else -10.0
        return {"text": text, "lang": lang, "lang_prob": 1.0 if lang_prob is None else lang_prob, "path": "full",
                "no_speech_prob": float(no_speech), "avg_logprob": logprob, "suspect": False,
                "prior_used": prior_used, "prompt_tokens": len(venue)}

    def _decode_pieces(self, audio: np.ndarray, lang: str | None, cancel: CancelToken,
                       prior: str | None = None) -> dict:
        """Audio longer than the window, piece by piece (avatar/asr/pieces.py): cut in pauses, each
        piece at most PIECE_S long, so each is decoded whole (the trimmed window, or the full one
        when `asr.trim_window` is off or the trimmed transcript looks wrong). A cut inside speech
        gets an overlap, and the words both pieces heard are said once.

        One piece of 30 s decoded as one window lost its last seconds' words (an utterance of 36 s
        kept 76 % of its words; tests/test_asr_long.py)."""
        from avatar.asr.pieces import OVERLAP_S, PIECE_S, join_overlap, split_points

        prior_used = False
        if lang is None:  # the language of the whole utterance: from its first window
            lang, lang_prob, prior_used = self._detect(audio, prior)
            cancel.raise_if_cancelled()
        else:
            lang_prob = 1.0
        text, kept, no_speech, logprobs = "", 0, [], []
        overlap = int(OVERLAP_S * SAMPLE_RATE)
        pieces = split_points(audio * 32768.0, PIECE_S)
        with self.tracer.span("asr.pieces", track="asr", pieces=len(pieces)) as info:
            cut_in_speech = False
            for start, end, at_pause in pieces:
                piece = audio[max(0, start - overlap) if cut_in_speech else start:end]
                if self.cfg.trim_window:
                    r = self._decode_window(piece, lang, False, cancel)
                    if r.get("suspect"):
                        r = self._decode_full(piece, lang, lang_prob, cancel)
                else:
                    r = self._decode_full(piece, lang, lang_prob, cancel)
                cancel.raise_if_cancelled()
                piece_tr = Transcript(r["text"], lang, lang_prob, "", 0.0, r["text"], r["path"],
                                      r["no_speech_prob"], r["avg_logprob"])
                if r["text"].strip() and not why_dropped(piece_tr):  # a quiet piece's "Thank you." goes
                    text = join_overlap(text, r["text"]) if cut_in_speech else f"{text} {r['text']}".strip()
                    kept += 1
                    no_speech.append(r["no_speech_prob"])
                    logprobs.append((r["avg_logprob"], piece.size))
                cut_in_speech = not at_pause
            info["kept"] = kept
        weight = sum(n for _, n in logprobs)
        return {"text": text, "lang": lang, "lang_prob": lang_prob, "path": "pieces",
                "no_speech_prob": float(min(no_speech, default=1.0)),
                "avg_logprob": float(sum(lp * n for lp, n in logprobs) / weight) if weight else -10.0,
                "suspect": False, "prior_used": prior_used, "prompt_tokens": len(self.prompt_ids(lang))}

    def _detect(self, audio: np.ndarray, prior: str | None = None) -> tuple[str, float, bool]:
        speech = audio[: (MAX_FRAMES - self.cfg.pad_frames) * HOP]
        enc = self._encode(speech, partial=False)
        return self._language(enc, None, prior, speech.size / SAMPLE_RATE)

    def _encode(self, speech: np.ndarray, partial: bool):
        """The encoder output for the speech plus pad_frames of silence (not a 30 s window)."""
        import ctranslate2

        frames = encoder_frames(speech.size, self.cfg.pad_frames, self.cfg.encode_bucket_frames)
        pad = np.zeros(max(0, frames * HOP - speech.size), dtype=np.float32)
        with self.tracer.span("asr.encode", track="asr", partial=partial) as info:
            feats = self.model.feature_extractor(np.concatenate([speech, pad]), padding=0)[:, :MAX_FRAMES]
            feats = feats[:, : feats.shape[1] // 2 * 2]  # the encoder halves the frame count
            info["frames"] = int(feats.shape[1])
            return self.model.model.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(feats[None])))

    def _language(self, enc, lang: str | None, prior: str | None = None,
                  seconds: float = 0.0) -> tuple[str, float, bool]:
        """(language, its probability among the kiosk's languages, whether the prior decided)."""
        if lang is not None:
            return lang, 1.0, False
        if len(self.languages) == 1:
            return self.languages[0], 1.0, False
        with self.tracer.span("asr.language", track="asr") as info:
            probs = dict(self._decoder.detect_language(enc)[0])
            lang, prob, used = choose_language(probs, self.languages, prior, seconds * 1000.0,
                                               self.cfg.prior_max_ms, self.cfg.prior_below_prob)
            info.update(lang=lang, prob=round(prob, 3), prior=prior or "", prior_used=used)
        return lang, prob, used


def _transcript(result: dict, audio: np.ndarray) -> Transcript:
    tr = Transcript(result["text"], result["lang"], result["lang_prob"], "", 0.0, result["text"],
                    result["path"], result["no_speech_prob"], result["avg_logprob"],
                    result.get("prior_used", False), result.get("prompt_tokens", 0),
                    tuple(result.get("words", ())), fallback=result.get("fallback", ""))
    tr.encoded_s = round(audio.size / SAMPLE_RATE, 3)
    tr.covered_s = round(float(result.get("covered_s", 0.0)), 3)
    tr.dropped = why_dropped(tr)
    if tr.dropped:
        tr.text = ""
    return tr


def encoder_frames(samples: int, pad_frames: int, bucket: int) -> int:
    """The encoder's input length in feature frames for `samples` of speech: the speech plus at least
    `pad_frames` of silence, rounded up to a multiple of `bucket` (0: not rounded), at most Whisper's
    30 s. oneDNN makes the encoder's convolutions for each input length it meets (~23 ms the first
    time on the 2-core box: 179 against 156 ms for a 7.6 s window) and keeps a few dozen; with the
    lengths in buckets of 0.5 s a kiosk meets the same few again and again (docs/PERF.md)."""
    frames = samples // HOP + pad_frames
    if bucket > 1:
        frames = -(-frames // bucket) * bucket
    return min(MAX_FRAMES, frames)


def max_length(prompt_len: int, new_tokens: int) -> int:
    """The `max_length` that lets CTranslate2's Whisper generate `new_tokens` after a prompt of
    `prompt_len` tokens. It generates at most min(max_length - prompt_len + 1, max_length // 2)
    (measured on ctranslate2 4.8: max_length 11, 19, 30 after a 3-token prompt gave 5, 9, 15
    tokens; 30, 40, 60 after 24 gave 7, 17, 30), so `prompt_len + new_tokens` (what this module
    passed until 2026-12-02) halved a budget after a short prompt, and its end was never reached."""
    return min(CONTEXT_LIMIT, max(prompt_len + new_tokens - 1, 2 * new_tokens))


def plain_doubt(text: str, seconds: float) -> str:
    """Why a plain (no timestamps) transcript of `seconds` of audio cannot be kept ("" when it can):
    nothing heard; fewer than PLAIN_MIN_WORDS_PER_S words per second of the audio past its first
    PLAIN_SLACK_S (pre-roll, the trailing quiet and a slow speaker's pace: Whisper stopped after a
    first sentence); or the whole said twice ("Next. Next.": it ran on into the padding)."""
    words = normalize(text).split()
    n = len(words)
    if n == 0:
        return "empty"
    if n < PLAIN_MIN_WORDS_PER_S * (seconds - PLAIN_SLACK_S):
        return "too_few_words"
    if n % 2 == 0 and words[:n // 2] == words[n // 2:]:
        return "said_twice"
    return ""


def token_budget(seconds: float, prompt_len: int, cap: int = CONTEXT_LIMIT) -> int:
    """Tokens a pass over `seconds` of audio may produce after `prompt_len` tokens of prompt: a
    transcript that uses them all has no end token (a loop, or speech far faster than anyone's)."""
    want = min(cap, int(10 + TOKENS_PER_SECOND * seconds))
    room = min(CONTEXT_LIMIT - prompt_len + 1, CONTEXT_LIMIT // 2)  # what max_length() can give at most
    return max(1, min(want, room))


def _as_float(pcm: np.ndarray) -> np.ndarray:
    pcm = np.asarray(pcm).reshape(-1)
    if pcm.dtype == np.int16:
        return pcm.astype(np.float32) / 32768.0
    return pcm.astype(np.float32, copy=False)
