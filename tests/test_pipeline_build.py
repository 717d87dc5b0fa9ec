from avatar.pipeline.build import PlaylistSource
from avatar.trace import now

from fakes import ScriptedSource


def test_playlist_visitor_waits_for_the_reply_before_the_next_question():
    t0 = now()
    busy_until = t0 + 0.6  # the avatar answers for a while after the first question
    source = PlaylistSource([ScriptedSource(0.2), ScriptedSource(0.2)], busy=lambda: now() < busy_until, gap_s=0.1)
    frames = list(source.frames())
    stamps = [f.audio_t for f in frames]
    assert stamps == sorted(stamps)  # one continuous stream
    steps = {round(b - a, 3) for a, b in zip(stamps, stamps[1:])}
    assert steps == {0.02}  # no gaps or overlaps in stream time
    # the second question begins only after the avatar was idle for the gap
    assert stamps[-1] + 0.02 >= 0.2 + 0.2 + 0.4 + 0.1 - 0.05
