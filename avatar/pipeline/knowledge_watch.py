"""The venue's knowledge pack, read again when the operator edits it: no restart, no visitor cut off.

A kiosk is left alone for weeks while the venue's hours, prices and events change. `KnowledgeWatch`
looks at the pack's file every `general.knowledge_check_s` seconds. When it changed and has stayed
unchanged for a moment (an editor may write it in pieces), the file is read and checked as at start:

- a pack that loads replaces the answerers' pack **between turns** (never while a visitor is being
  answered or the reply plays), and the kiosk says so (a `Notice`, in the log and the window);
- a pack that does not load (a typo in the TOML, a missing field) changes nothing: the kiosk goes on
  answering from the pack it has and says what is wrong in the edited file, once per edit.

The model never learns a pack (facts are read at every answer), so nothing else is reloaded.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

from avatar import events as ev
from avatar.errors import AvatarError
from avatar.pipeline.heap import resettle_heap
from avatar.trace import now

log = logging.getLogger(__name__)

SETTLE_S = 1.0  # the file must look the same this long before it is read
PENDING_RETRY_S = 0.25  # a pack waiting for a moment between turns looks this often


class KnowledgeWatch:
    """Polls one pack file; `load()` reads it (raising AvatarError when it is broken), `apply(pack)`
    puts it to use and returns False while a turn is running (then it is tried again next look)."""

    def __init__(self, file: str | Path, load: Callable[[], object], apply: Callable[[object], bool],
                 emit: Callable[[ev.Event], None], every_s: float = 5.0, in_use: str = "") -> None:
        self.file = Path(file)
        self.in_use = in_use  # the version of the pack in use (KnowledgePack.version), for the operator
        self.load, self.apply, self.emit = load, apply, emit
        self.every_s = max(0.05, float(every_s))
        self._seen = self._signature()  # the file as the running pack was read from it
        self._pending = None  # a pack read, waiting for a moment between turns
        self._stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.reloads = 0

    def start(self) -> "KnowledgeWatch":
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="knowledge-watch", daemon=True)
            self.thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self.thread is not None and self.thread is not threading.current_thread() and self.thread.is_alive():
            self.thread.join(timeout)

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = self.file.stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_ctime_ns, st.st_size  # ctime: a file made unreadable is told at once

    def _run(self) -> None:
        # A pack read while a visitor was being answered is tried again soon, not a whole interval later:
        # the moments between two visitors may be short.
        while not self._stop.wait(self.every_s if self._pending is None else min(self.every_s, PENDING_RETRY_S)):
            try:
                self.check()
            except Exception:  # the watch must never take the kiosk down; it looks again later
                log.exception("checking the knowledge pack for changes failed")

    def check(self) -> bool:
        """One look (the thread calls this; tests call it directly). True when a new pack went into use."""
        if self._pending is not None:
            return self._use_pending()
        sig = self._signature()
        if sig == self._seen:
            return False
        if sig is None:  # moved away or being replaced: the running pack stays until it is back
            return False
        self._stop.wait(SETTLE_S)  # an editor may still be writing it
        if self._signature() != sig:
            return False  # still changing: next look
        self._seen = sig
        try:
            pack = self.load()
        except AvatarError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            before = f" ({self.in_use})" if self.in_use else ""
            self._notice(f"the edited knowledge pack was not taken, the kiosk answers from the one before{before}: "
                         f"{exc.message}{hint}", error=True)
            return False
        self._pending = pack
        return self._use_pending()

    def _use_pending(self) -> bool:
        if not self.apply(self._pending):
            return False  # a visitor is being answered: at the next look
        pack, self._pending = self._pending, None
        self.reloads += 1
        resettle_heap()  # the old pack's frozen objects go now, between visitors (avatar/pipeline/heap.py)
        count = len(getattr(pack, "entries", ()) or ())
        self.in_use = getattr(pack, "version", "") or self.in_use
        version = f" ({self.in_use})" if self.in_use else ""
        self._notice(f"knowledge pack read again from {self.file}: {count} facts now in use{version}")
        return True

    def _notice(self, message: str, error: bool = False) -> None:
        (log.warning if error else log.info)("%s", message)
        self.emit(ev.Notice(now(), key="knowledge", message=message))
