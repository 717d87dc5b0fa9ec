"""Re-masking only the content tokens: finding them and building the infill skeleton."""
from avatar.answer.checks.remask import content_surfaces, content_token_ranges, remask_skeleton
from avatar.llm.infill import Slot


def encode(text):  # stand-in tokenizer: a word-start marker, then one token per character
    return [0] + [ord(ch) for ch in text]


def test_surfaces_are_the_items_and_names_not_common_words():
    assert content_surfaces("Sie finden Anna Becker um 18 Uhr im 2. Stock.", "de") == [
        "18 Uhr", "2. Stock", "Anna", "Becker"]


def test_ranges_find_each_surface_once_and_the_skeleton_masks_only_them():
    ids = encode("open 9 to 9 pm")
    ranges = content_token_ranges(ids, ["9 pm", "9"], encode)
    assert ranges == [(6, 7), (11, 15)]
    skeleton = remask_skeleton([100, 101], ids, ranges, tail=[3])
    assert skeleton[:2] == [100, 101] and skeleton[-1] == 3
    slots = [s for s in skeleton if isinstance(s, Slot)]
    assert [s.max_len for s in slots] == [3, 6]
    assert len([t for t in skeleton if not isinstance(t, Slot)]) == 2 + len(ids) - 5 + 1
