"""From banned strings to banned token ids, without banning what a grounded reply needs.

The embedded tokenizer splits digits one by one, so banning every token of "17:00" would ban the
"1", ":" and "0" of the right "18:00" too. The rule: ban a token of a banned string only when no
retrieved fact (nor the question) contains it; a grounded reply copies its values from the facts,
so it never needs such a token. A wrong value written only with tokens the facts use cannot be
banned this way; the re-decode's other variant or the fallback handles it.
"""
from __future__ import annotations

from typing import Callable, Iterable


def banned_token_ids(banned: Iterable[str], encode: Callable[[str], list[int]], allowed_texts: Iterable[str],
                     keep: Iterable[int] = ()) -> frozenset[int]:
    """Token ids of the banned strings that none of `allowed_texts` uses (and not in `keep`: specials)."""
    allowed = set(keep)
    for text in allowed_texts:
        allowed.update(encode(text))
    out: set[int] = set()
    for s in banned:
        out.update(i for i in encode(s) if i not in allowed)
    return frozenset(out)
