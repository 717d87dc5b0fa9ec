"""The loaded kiosk's heap is frozen out of the cyclic collector's walk (avatar/pipeline/heap.py)."""
from __future__ import annotations

import gc
import weakref

from avatar.pipeline.heap import resettle_heap, settle_heap


class _Node:
    pass


def _cycle() -> weakref.ref:
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_settling_freezes_what_is_alive_so_a_full_collection_leaves_it_out():
    held = [_Node() for _ in range(200_000)]  # a loaded kiosk's worth of objects
    try:
        settle_heap()
        assert gc.get_freeze_count() >= len(held)  # out of the walk that stalls the audio callbacks
        assert not any(gc.is_tracked(x) and x in gc.get_objects(generation=2) for x in held[:1])
    finally:
        gc.unfreeze()


def test_cyclic_garbage_of_frozen_objects_goes_only_when_the_heap_is_settled_again():
    ref = _cycle()  # only reachable from itself: cyclic garbage
    try:
        gc.freeze()
        gc.collect()
        assert ref() is not None  # frozen: the collector does not look at it
        resettle_heap()
        assert ref() is None
        assert gc.get_freeze_count() > 0  # and what is alive is frozen again
    finally:
        gc.unfreeze()
