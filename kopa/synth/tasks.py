"""What makes a synthesized trajectory a KOPA-Bench task besides its steps: the state an episode starts in
(today's date, a key issued for each platform the tools need) and the tools offered (the trajectory's own
and a few distractors from G*)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kopa.catalog.loader import Catalog
from kopa.eval.task import InjectedState, SetupAction

DISTRACTORS = 3


def injected_state(catalog: Catalog, tools: list[str], today: str) -> InjectedState:
    platforms = sorted({catalog[t].platform for t in tools if catalog[t].auth is not None
                        and catalog[t].family != "session"})
    return InjectedState(predefined={"current_date": today},
                         setup=[SetupAction(tool="issue_api_key", args={"platform": p}) for p in platforms])


def available_tools(used: list[str], neighbours: Iterable[str], rng: np.random.Generator) -> list[str]:
    """The trajectory's tools and up to DISTRACTORS others: targets of the used tools' retained edges."""
    near = sorted(set(neighbours) - set(used))
    picks = [near[int(i)] for i in rng.permutation(len(near))[:DISTRACTORS]] if near else []
    return sorted(set(used) | set(picks))
