"""The Python heap of a loaded kiosk, kept out of the cyclic collector's way.

The loaded kiosk holds ~200,000 Python objects (models, tokenizers, tables). A full collection walks
them all, ~110 ms on the 2-core box, under the GIL: the capture and playback callbacks stall, and
the echo canceller's time stamps slip (a test process holding ~420,000 objects: ~230 ms). So once the
stages are loaded and warmed up, what loading left behind is collected and every object alive then is
frozen (`gc.freeze`): later collections walk only what the turns made since, well under a millisecond.

A frozen object is never collected by the cyclic collector, only by its reference count: garbage in
a cycle made of objects loaded before the freeze (an old pack's index after the knowledge pack was
read again) would stay. So a new pack taken between visitors is followed by `resettle_heap`: thaw,
collect once (the ~110 ms stall, between visitors), freeze again.
"""
from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect once, then freeze every object alive now (after the stages were loaded)."""
    gc.collect()
    gc.freeze()


def resettle_heap() -> None:
    """Thaw, collect what the frozen objects left as cyclic garbage, and freeze again."""
    gc.unfreeze()
    settle_heap()
