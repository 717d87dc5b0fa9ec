"""Offline by construction: a whole text turn and a whole voice turn open no socket outside loopback."""
import ipaddress
import os
import socket
import subprocess
import sys

import pytest

from avatar import config
from avatar import events as ev
from avatar.pipeline.voice_loop import VoiceLoop
from avatar.trace import Tracer

from fakes import END, SPEECH, TENTATIVE, FakeASR, FakeSink, Recorder, ScriptedEndpointer, ScriptedSource


def _is_loopback(address) -> bool:
    if isinstance(address, (str, bytes)):  # an AF_UNIX path: local by construction
        return True
    host = address[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture
def no_network(monkeypatch):
    """Every connection or name lookup outside loopback is refused and remembered."""
    attempts: list = []
    real_connect, real_connect_ex, real_getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def connect(self, address):
        if not _is_loopback(address):
            attempts.append(address)
            raise OSError("network access in an offline kiosk")
        return real_connect(self, address)

    def connect_ex(self, address):
        if not _is_loopback(address):
            attempts.append(address)
            return 101  # ENETUNREACH
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host not in (None, "localhost") and not _is_loopback((host,)):
            attempts.append(host)
            raise socket.gaierror("name lookup in an offline kiosk")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return attempts


def test_telemetry_and_hub_switches_are_set_before_any_stage_loads():
    env = {k: v for k, v in os.environ.items()
           if k not in ("ORT_DISABLE_TELEMETRY", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    code = ("import sys, avatar, os; "
            "assert 'onnxruntime' not in sys.modules and 'transformers' not in sys.modules; "
            "print(os.environ['ORT_DISABLE_TELEMETRY'], os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1", "1"]


def test_a_text_turn_opens_no_socket(no_network):
    from avatar.answer import make_answerer

    cfg = config.load(sets=["llm.threads=1"], env={})
    made = make_answerer(cfg, Tracer())
    answerer = made[0] if isinstance(made, tuple) else made
    answer = answerer.answer("Was kostet der Eintritt?", "de")
    assert answer.reply
    assert no_network == []


def test_a_voice_turn_with_the_real_answerer_and_voice_opens_no_socket(no_network):
    from avatar.answer import make_answerer
    from avatar.tts.synthesizer import Synthesizer

    cfg = config.load(sets=["asr.partial_interval_ms=0", "llm.threads=1", "tts.threads=1"], env={})
    tracer = Tracer()
    made = make_answerer(cfg, tracer)
    answerer = made[0] if isinstance(made, tuple) else made
    loop = VoiceLoop(cfg, ScriptedSource(4.0), FakeSink(), answerer,
                     FakeASR(text="where are the toilets", lang="en"), Synthesizer(cfg.tts, tracer), tracer,
                     endpointer=ScriptedEndpointer([(0.1, SPEECH), (1.0, TENTATIVE), (1.3, END)]))
    rec = Recorder()
    loop.subscribe(rec)
    metrics = loop.run_until_done(timeout=60)
    assert len(metrics) == 1 and rec.of(ev.ReplyDone)
    assert no_network == []


def test_the_guard_sees_a_connection_outside_loopback(no_network):
    with pytest.raises(OSError):
        socket.create_connection(("192.0.2.1", 443), timeout=0.1)  # TEST-NET-1: never routed
    assert no_network
