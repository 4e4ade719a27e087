"""The simulator's lazily built state under threads: `kopa bench run` answers episodes on several threads of
one process, and a table or text built on first use must never be seen half-built by a second thread."""

from __future__ import annotations

import threading

from sim.platforms.edu import neis


def _first_use_by_two_threads() -> tuple[list[dict[str, int]], list[str]]:
    neis._meal_text.cache_clear()  # the first use again, by both threads at once
    start = threading.Barrier(2)
    seen: list[dict[str, int]] = []
    failures: list[str] = []

    def first_use() -> None:
        start.wait()
        try:
            text = neis._meal_text()
            seen.append({k: len(v) for k, v in text.items()})
            assert text["ntr"][0] and text["cal"][0]  # what _meal_rows reads
        except Exception as exc:  # a half-built text: KeyError: 'ntr'
            failures.append(repr(exc))

    threads = [threading.Thread(target=first_use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return seen, failures


def test_meal_texts_built_on_first_use_are_whole_for_every_thread():
    for _ in range(100):
        seen, failures = _first_use_by_two_threads()
        assert failures == [] and seen == [{"cal": 3000, "ntr": 3000}] * 2
