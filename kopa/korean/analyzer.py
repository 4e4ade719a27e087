"""The one Korean analyzer of a process: kiwipiepy's `Kiwi` with its bundled model (kiwipiepy-model), no
download. Loading it takes about a second and a half; it is made on first use and shared by every caller
(a forked worker inherits its parent's)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def kiwi() -> Any:
    from kiwipiepy import Kiwi  # imported here: the CLI's commands that write no Korean never pay for it

    return Kiwi()
