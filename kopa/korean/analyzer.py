"""The one Korean analyzer of a process: kiwipiepy's `Kiwi` with its bundled model (kiwipiepy-model), no
download. Loading it takes about a second and a half; it is made on first use and shared by every caller
(a forked worker inherits its parent's)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def kiwi() -> Any:
    from kiwipiepy import Kiwi  # imported here: the CLI's commands that write no Korean never pay for it

    analyzer = Kiwi()
    for word, tag in DOMAIN_WORDS:
        analyzer.add_user_word(word, tag)
    return analyzer


# Nouns of the catalog's data the bundled model splits wrongly: 주차면은 read as 주차 + 이다 + 면은 (an ending),
# which hid the subject of "… 소형차 주차면은 … 보다 몇 면 많나요?" from the comparison reader.
DOMAIN_WORDS = (("주차면", "NNG"),)
