"""The last version of a knowledge pack that loaded, kept so that a mistake in an edit never leaves
the kiosk without answers.

An operator edits `venue.toml` while the kiosk runs; a typo is named and the running pack stays
(pipeline/knowledge_watch.py). But a kiosk restarts (a power cut, the nightly reboot, a crash) and
would then refuse to start on the broken file. So every time the kiosk loads a pack, a copy of the
file goes to the kiosk's state folder (`general.state_dir`, default `$XDG_STATE_HOME/avatar`, i.e.
`~/.local/state/avatar`), under packs/, one per pack path; when the pack does not load at start, the kiosk answers from that copy and says so (a notice
in the window and the log, `avatar doctor`). `avatar ask` and `avatar doctor` never fall back: they
are how the operator checks an edit, and say what is wrong.

The copy holds only the venue's own text.
"""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from avatar.answer.knowledge import KnowledgeError, KnowledgePack, load_pack, pack_file

log = logging.getLogger(__name__)


def state_dir(cfg=None) -> Path:
    """`general.state_dir`/packs; that setting's default "" is `$XDG_STATE_HOME/avatar` (~/.local/state/avatar)."""
    configured = cfg.general.state_dir if cfg is not None else ""
    if configured:
        from avatar.paths import resolve

        return resolve(configured) / "packs"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "avatar" / "packs"


def copy_path(path: str | os.PathLike, cfg=None) -> Path:
    """Where the last good copy of the pack at `path` is kept (one per absolute path)."""
    file = pack_file(path)
    # The folder resolved, not the file: a venue.toml that is a link keeps its copy when the link changes.
    key = hashlib.sha256(str(file.parent.resolve() / file.name).encode()).hexdigest()[:16]
    return state_dir(cfg) / f"{key}.venue.toml"


def remember(path: str | os.PathLike, cfg=None) -> None:
    """Keep the pack file at `path` (it has just loaded) as its last good copy."""
    source = pack_file(path)
    target = copy_path(source, cfg)
    try:
        data = source.read_bytes()
        saved = source.stat()
        if target.exists() and target.read_bytes() == data:
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(data)
        os.utime(partial, ns=(saved.st_atime_ns, saved.st_mtime_ns))  # the copy's version reads as the save's
        os.replace(partial, target)
    except OSError as exc:  # a read-only home: the kiosk works, only without this safety net
        log.info("the last good copy of the knowledge pack was not kept: %s", exc)


def load_keeping_last_good(path: str | os.PathLike, cfg=None) -> tuple[KnowledgePack, str | None]:
    """The pack at `path`, kept as the last good copy; or, when it does not load and a copy exists,
    the copy with a notice that says what is wrong. Without a copy the pack's own error is raised."""
    try:
        pack = load_pack(path)
    except KnowledgeError as exc:
        copy = copy_path(path, cfg)
        if not copy.is_file():
            raise
        try:
            pack = load_pack(copy)
        except KnowledgeError:
            raise exc from None
        hint = f" ({exc.hint})" if exc.hint else ""
        notice = (f"the knowledge pack does not load: {exc.message}{hint}; answering from its last version "
                  f"that loaded ({pack.version}) until it is mended")
        log.warning("%s", notice)
        return pack, notice
    remember(path, cfg)
    log.info("knowledge pack in use: %s (%s)", pack_file(path), pack.version)
    return pack, None
