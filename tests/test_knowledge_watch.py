"""The kiosk reads the venue's pack again when the operator edits it: used between turns, a broken
edit named and the pack before kept."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from avatar import config
from avatar import events as ev
from avatar.answer.knowledge import load_pack
from avatar.answer.retrieval_answerer import RetrievalAnswerer
from avatar.pipeline import knowledge_watch
from avatar.answer.knowledge import pack_file
from avatar.pipeline.knowledge_watch import KnowledgeWatch
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer

from fakes import FakeASR, FakeSink, FakeTTS, ScriptedEndpointer, ScriptedSource

SAMPLE = Path(__file__).resolve().parents[1] / "assets" / "venues" / "sample" / "venue.toml"
OLD_PRICE = "Der Eintritt kostet 9 € für Erwachsene."


@pytest.fixture(autouse=True)
def no_settle(monkeypatch):
    monkeypatch.setattr(knowledge_watch, "SETTLE_S", 0.0)


@pytest.fixture()
def venue(tmp_path) -> Path:
    folder = tmp_path / "venue"
    folder.mkdir()
    shutil.copy(SAMPLE, folder / "venue.toml")
    assert OLD_PRICE in (folder / "venue.toml").read_text(encoding="utf-8")
    return folder


def edit(folder: Path, old: str, new: str) -> None:
    file = folder / "venue.toml"
    text = file.read_text(encoding="utf-8")
    assert old in text
    file.write_text(text.replace(old, new), encoding="utf-8")
    st = file.stat()  # a later mtime even on a coarse clock: the edit must be seen as one
    os.utime(file, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def watch_of(folder: Path, apply=lambda pack: True):
    notices: list[ev.Notice] = []
    applied = []

    def use(pack):
        ok = apply(pack)
        if ok:
            applied.append(pack)
        return ok

    watch = KnowledgeWatch(pack_file(folder), lambda: load_pack(folder), use, notices.append, every_s=0.05)
    return watch, applied, notices


def test_an_edited_pack_that_loads_goes_into_use_and_the_kiosk_says_so(venue):
    watch, applied, notices = watch_of(venue)
    assert watch.check() is False and not applied  # nothing changed yet
    edit(venue, OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    assert watch.check() is True
    assert len(applied) == 1 and watch.reloads == 1
    assert "12 €" in " ".join(f.text for f in applied[0].facts("de"))
    assert [n.key for n in notices] == ["knowledge"] and "read again" in notices[0].message
    assert watch.check() is False  # the same file is not read twice


def test_a_broken_edit_is_named_once_and_the_pack_before_stays(venue):
    watch, applied, notices = watch_of(venue)
    edit(venue, "[venue]", "[venue")  # a typo in the TOML
    assert watch.check() is False and not applied
    assert len(notices) == 1
    assert "not taken" in notices[0].message and "not valid TOML" in notices[0].message
    assert watch.check() is False and len(notices) == 1  # said once per edit, not every few seconds
    edit(venue, "[venue", "[venue]")  # mended
    assert watch.check() is True and len(applied) == 1


def test_a_pack_with_a_missing_field_is_refused_with_the_loaders_message(venue):
    watch, applied, notices = watch_of(venue)
    text = (venue / "venue.toml").read_text(encoding="utf-8")
    name_line = next(line for line in text.splitlines() if line.startswith("name ="))
    edit(venue, name_line + "\n", "")
    assert watch.check() is False and not applied
    assert "name" in notices[0].message


def test_while_a_turn_runs_the_new_pack_waits_for_the_next_look(venue):
    busy = [True]
    watch, applied, notices = watch_of(venue, apply=lambda pack: not busy[0])
    edit(venue, OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    assert watch.check() is False and not applied and not notices
    busy[0] = False
    assert watch.check() is True and len(applied) == 1


def test_a_pack_file_that_is_gone_for_a_moment_changes_nothing(venue):
    watch, applied, notices = watch_of(venue)
    (venue / "venue.toml").rename(venue / "venue.toml.bak")
    assert watch.check() is False and not applied and not notices


def test_the_retrieval_answerer_says_the_edited_fact():
    cfg = config.load(sets=["answer.semantic_weight=0"], env={})
    pack = load_pack(SAMPLE)
    answerer = RetrievalAnswerer(pack, cfg)
    assert "9 €" in answerer.answer("Was kostet der Eintritt für Erwachsene?", "de").reply
    edited = SAMPLE.read_text(encoding="utf-8").replace(OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    answerer.use_pack(load_pack_text(edited))
    reply = answerer.answer("Was kostet der Eintritt für Erwachsene?", "de").reply
    assert "12 €" in reply and "9 €" not in reply


def load_pack_text(text: str):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "venue.toml").write_text(text, encoding="utf-8")
        return load_pack(tmp)


class PackAnswerer:
    def __init__(self):
        self.packs = []

    def use_pack(self, pack):
        self.packs.append(pack)

    def answer(self, question, lang, history=(), cancel=None, turn=None):  # pragma: no cover - no turn here
        raise AssertionError("no question in this test")


def test_the_voice_loop_takes_a_pack_only_between_turns():
    cfg = config.load(sets=["asr.partial_interval_ms=0"], env={})
    answerer, fallback = PackAnswerer(), PackAnswerer()
    loop = VoiceLoop(cfg, ScriptedSource(0.1), FakeSink(), answerer, FakeASR(), FakeTTS(), Tracer(),
                     endpointer=ScriptedEndpointer([]), fallback_answerer=fallback)
    pack = load_pack(SAMPLE)
    loop._turn_taking.speaking = True  # the visitor is talking
    assert loop.use_pack(pack) is False and not answerer.packs
    loop._turn_taking.speaking = False
    assert loop.use_pack(pack) is True
    assert answerer.packs == [pack] and fallback.packs == [pack]


def test_the_kiosks_loop_follows_its_pack_and_stops_the_watch_with_it(venue, tmp_path):
    from avatar.pipeline.build import Stages, build_voice_loop

    cfg = config.load(sets=["general.knowledge_check_s=0.05", "asr.partial_interval_ms=0", "echo.enabled=false"],
                      env={})
    answerer = PackAnswerer()
    stages = Stages(FakeASR(), FakeTTS(), answerer, None, [], {})
    wav = Path(__file__).resolve().parent / "data"
    inputs = sorted(wav.rglob("*.wav"))[:1]
    loop = build_voice_loop(cfg, inputs, tmp_path / "out.wav", Tracer(), stages=stages, knowledge=str(venue))
    notices = []
    loop.subscribe(lambda e: notices.append(e) if isinstance(e, ev.Notice) else None)
    watch = loop._knowledge_watch
    assert watch is not None and watch.file == venue / "venue.toml"
    edit(venue, OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    assert watch.check() is True and len(answerer.packs) == 1
    assert notices and notices[-1].key == "knowledge"
    loop.start()
    loop.close(timeout=5.0)
    assert watch.thread is not None and not watch.thread.is_alive()


def test_zero_turns_the_watch_off(tmp_path):
    from avatar.pipeline.build import Stages, build_voice_loop

    cfg = config.load(sets=["general.knowledge_check_s=0", "echo.enabled=false"], env={})
    stages = Stages(FakeASR(), FakeTTS(), PackAnswerer(), None, [], {})
    inputs = sorted((Path(__file__).resolve().parent / "data").rglob("*.wav"))[:1]
    loop = build_voice_loop(cfg, inputs, tmp_path / "out.wav", Tracer(), stages=stages)
    assert loop._knowledge_watch is None
    loop.close(timeout=2.0)


def test_the_setting_is_checked():
    with pytest.raises(Exception, match="knowledge_check_s"):
        config.load(sets=["general.knowledge_check_s=nan"], env={})


# --- the last version that loaded (answer/last_good.py) --------------------------------------------
def test_a_kiosk_restarted_on_a_broken_pack_answers_from_its_last_good_version(venue, monkeypatch, tmp_path):
    from avatar.answer import load_knowledge
    from avatar.answer.last_good import copy_path

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config.load(sets=[f"general.knowledge={venue}"], env={})
    notices: list[str] = []
    first = load_knowledge(cfg, notices=notices, last_good=True)
    assert not notices and copy_path(venue).is_file()  # it loaded: kept as the last good version
    edit(venue, "[venue]", "[venue")  # then the operator saves a typo, and the kiosk restarts
    with pytest.raises(Exception, match="not valid TOML"):
        load_knowledge(cfg)  # `avatar ask` and `avatar doctor` say what is wrong
    again = load_knowledge(cfg, notices=notices, last_good=True)
    assert [f.text for f in again.facts("de")] == [f.text for f in first.facts("de")]
    assert len(notices) == 1 and "not valid TOML" in notices[0] and "last version that loaded" in notices[0]


def test_without_a_last_good_version_the_broken_pack_stops_the_start_with_its_message(venue, monkeypatch, tmp_path):
    from avatar.answer import load_knowledge

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    edit(venue, "[venue]", "[venue")
    cfg = config.load(sets=[f"general.knowledge={venue}"], env={})
    with pytest.raises(Exception, match="not valid TOML"):
        load_knowledge(cfg, notices=[], last_good=True)


def test_an_edit_the_watch_takes_becomes_the_last_good_version(venue, monkeypatch, tmp_path):
    from avatar.answer.last_good import copy_path
    from avatar.pipeline.build import Stages, build_voice_loop

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config.load(sets=["general.knowledge_check_s=0.05", "asr.partial_interval_ms=0", "echo.enabled=false"],
                      env={})
    stages = Stages(FakeASR(), FakeTTS(), PackAnswerer(), None, [], {})
    inputs = sorted((Path(__file__).resolve().parent / "data").rglob("*.wav"))[:1]
    loop = build_voice_loop(cfg, inputs, tmp_path / "out.wav", Tracer(), stages=stages, knowledge=str(venue))
    edit(venue, OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    assert loop._knowledge_watch.check() is True
    assert "12 €" in copy_path(venue).read_text(encoding="utf-8")
    loop.close(timeout=2.0)


def test_doctor_says_the_kiosk_answers_from_the_last_good_version(venue, monkeypatch, tmp_path):
    from avatar.answer import load_knowledge
    from avatar.commands.doctor import _knowledge

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config.load(sets=[f"general.knowledge={venue}"], env={})
    load_knowledge(cfg, notices=[], last_good=True)
    edit(venue, "[venue]", "[venue")
    check = _knowledge(cfg)
    assert check.status == "fallback" and "not valid TOML" in check.detail and "last version" in check.detail


def test_the_windows_knowledge_notice_is_replaced_when_the_pack_is_mended(venue, monkeypatch, tmp_path):
    import os as _os

    _os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from avatar.answer import load_knowledge
    from avatar.ui.app import notice_key, qt_app
    from avatar.ui.window import KioskWindow

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config.load(sets=[f"general.knowledge={venue}"], env={})
    load_knowledge(cfg, notices=[], last_good=True)
    edit(venue, "[venue]", "[venue")
    notices: list[str] = []
    load_knowledge(cfg, notices=notices, last_good=True)
    assert notice_key(notices[0]) == "knowledge"  # the start-up notice and the watch's share a key
    qt_app()
    window = KioskWindow(cfg)
    window.add_notice(notices[0], notice_key(notices[0]))
    assert "does not load" in window.notices.text()
    window.add_notice("knowledge pack read again from venue.toml: 43 facts now in use", "knowledge")
    assert "does not load" not in window.notices.text() and "read again" in window.notices.text()
    window.close()


def test_a_new_pack_in_use_thaws_collects_and_refreezes_the_heap(venue, monkeypatch):
    # the loaded kiosk's objects are frozen (avatar/pipeline/heap.py): the old pack's cyclic garbage
    # would stay, so taking a new pack settles the heap again; a pack that is not taken does not
    calls = []
    monkeypatch.setattr(knowledge_watch, "resettle_heap", lambda: calls.append(1))
    watch, _, _ = watch_of(venue, apply=lambda pack: False)
    edit(venue, OLD_PRICE, "Der Eintritt kostet 12 € für Erwachsene.")
    assert watch.check() is False and calls == []  # a visitor is being answered: not taken, not settled
    watch.apply = lambda pack: True
    assert watch.check() is True and calls == [1]


# --- a pack file the operating system will not read: named, and the pack before stays ------------
def break_file(folder: Path, how: str) -> str:
    """Make the pack's file unreadable the way a kiosk meets it; returns the error's words."""
    file = folder / "venue.toml"
    file.unlink()
    if how == "folder":  # a copy that went wrong
        file.mkdir()
        return "is a folder"
    if how == "io_error":  # a failing disk: reading /proc/self/mem from its start fails with EIO
        file.symlink_to("/proc/self/mem")
        return "cannot be read: Input/output error"
    shutil.copy(SAMPLE, file)  # "unreadable": a file copied in with the wrong owner or mode
    file.chmod(0)
    return "permission denied"


FAULTS = ["folder", "io_error",
          pytest.param("unreadable", marks=pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file"))]


@pytest.mark.parametrize("how", FAULTS)
def test_a_live_reload_the_os_refuses_is_named_with_the_version_still_in_use(venue, how, caplog):
    import logging

    from avatar.pipeline.build import Stages, build_voice_loop

    cfg = config.load(sets=["general.knowledge_check_s=0.05", "asr.partial_interval_ms=0", "echo.enabled=false",
                            "answer.semantic_weight=0"], env={})
    running = load_pack(venue)
    answerer = RetrievalAnswerer(running, cfg)
    stages = Stages(FakeASR(), FakeTTS(), answerer, None, [], {})
    inputs = sorted((Path(__file__).resolve().parent / "data").rglob("*.wav"))[:1]
    loop = build_voice_loop(cfg, inputs, venue.parent / "out.wav", Tracer(), stages=stages, knowledge=str(venue))
    notices = []
    loop.subscribe(lambda e: notices.append(e) if isinstance(e, ev.Notice) else None)
    words = break_file(venue, how)
    with caplog.at_level(logging.INFO, logger="avatar.pipeline.knowledge_watch"):
        assert loop._knowledge_watch.check() is False
    loop.close(timeout=2.0)
    assert [n.key for n in notices] == ["knowledge"]  # the window's operator line (ui/window.py add_notice)
    message = notices[0].message
    assert "not taken" in message and words in message and running.version in message
    assert [r.getMessage() for r in caplog.records] == [message]  # and one log line, the same words
    assert answerer.pack is running and "9 €" in answerer.answer("Was kostet der Eintritt?", "de").reply


@pytest.mark.parametrize("how", FAULTS)
def test_a_kiosk_restarted_on_a_pack_the_os_refuses_answers_from_the_last_good_version(venue, how, monkeypatch,
                                                                                       tmp_path):
    from avatar.answer import load_knowledge
    from avatar.commands.doctor import _knowledge

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cfg = config.load(sets=[f"general.knowledge={venue}"], env={})
    first = load_knowledge(cfg, notices=[], last_good=True)
    words = break_file(venue, how)
    with pytest.raises(Exception, match=words):
        load_knowledge(cfg)  # `avatar ask` names it
    notices: list[str] = []
    again = load_knowledge(cfg, notices=notices, last_good=True)
    assert [f.text for f in again.facts("de")] == [f.text for f in first.facts("de")]
    assert len(notices) == 1 and words in notices[0] and first.version in notices[0]
    check = _knowledge(cfg)  # `avatar doctor`
    assert check.status == "fallback" and words in check.detail and first.version in check.detail


def test_a_pack_folder_that_is_a_folder_is_a_named_error_on_the_command_line(venue, capsys):
    from avatar import cli

    break_file(venue, "folder")
    assert cli.main(["ask", "--knowledge", str(venue), "Was kostet der Eintritt?"]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and "internal error" not in err
