"""Episode state on the server side: one kopa ToolRuntime (its EpisodeState: issued keys, the virtual date,
stateful tools' data) per episode, held per MCP session.

Which episode a request belongs to: the one its ``_meta["kopa/episode"]`` names, else its scope's own
default episode. The scope is the session where the protocol has one (the initialize handshake's era: a
stdio process, an in-process client, a stateful HTTP session). The 2026-07-28 protocol has no sessions —
every request stands alone — so there the scope is the server's run: one client for a stdio process or an
in-process client. An HTTP server's run is every client's, so there a request that names no episode gets
a new one of its own (`kopa.mcp.server`), never a default other clients share.

Calls of one episode run one at a time (in-process, an episode's parallel calls run in order too, and the
watchlist's end state must not depend on a race); calls of different episodes run in parallel threads.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog
from kopa.tools.runtime import ToolRuntime
from kopa.tools.state import EpisodeState

EPISODE_META_KEY: Final = "kopa/episode"
DEFAULT_EPISODE = "default"
# Episodes a session keeps: a harness running many episodes over one connection names each; the oldest
# beyond this many is dropped (a bench run has a handful in flight at once).
MAX_EPISODES = 1024


class EpisodeError(ValueError):
    """A request's episode id or reset argument that cannot name an episode."""


@dataclass
class Episode:
    id: str
    runtime: ToolRuntime
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def state(self) -> EpisodeState:
        return self.runtime.state

    def describe(self) -> dict[str, Any]:
        """The episode's id, state (its canonical form, keys never included) and state hash."""
        return {"episode": self.id, "state_hash": self.state.hash(), "state": orjson.loads(self.state.canonical())}


class EpisodeStore:
    """The episodes of one scope (a session, or the server where the protocol has no sessions)."""

    def __init__(self, backend: Backend, catalog: Catalog, issue_keys: Sequence[str] = ()) -> None:
        self.backend = backend
        self.catalog = catalog
        self.issue_keys = list(issue_keys)  # platforms whose keys a fresh episode starts with
        self._episodes: OrderedDict[str, Episode] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, episode_id: str) -> Episode:
        """The episode named ``episode_id``; a fresh one the first time a name is seen."""
        with self._lock:
            episode = self._episodes.get(episode_id)
            if episode is None:
                episode = self._store(self._fresh(episode_id, None))
            self._episodes.move_to_end(episode_id)
            return episode

    def reset(self, episode_id: str, current_date: str | None) -> Episode:
        """A fresh episode under ``episode_id``, its 'today' ``current_date`` (default: the backend's)."""
        if current_date is not None:
            try:
                dt.date.fromisoformat(current_date)
            except ValueError as exc:
                raise EpisodeError(f"current_date {current_date!r} is not a YYYY-MM-DD date") from exc
        with self._lock:
            return self._store(self._fresh(episode_id, current_date))

    def _fresh(self, episode_id: str, current_date: str | None) -> Episode:
        # Built as kopa.eval.environment.Environment builds its runtime, so results and state hashes match.
        today = current_date or self.backend.today().isoformat()
        runtime = ToolRuntime(self.backend, catalog=self.catalog, state=EpisodeState(current_date=today))
        for platform in self.issue_keys:  # as the episode's first calls would: the state hash counts them
            issued = runtime.call("issue_api_key", {"platform": platform})
            if not issued.ok:  # on a live backend: no key in the environment (KopaMCPServer checks at start)
                raise EpisodeError(f"--issue-keys {platform}: {issued.error.message if issued.error else 'refused'}")
        return Episode(episode_id, runtime)

    def _store(self, episode: Episode) -> Episode:
        # A runtime's client is never closed: closing it would close the backend's shared transport
        # (kopa.eval.environment.Environment leaves its clients open for the same reason).
        self._episodes.pop(episode.id, None)
        self._episodes[episode.id] = episode
        while len(self._episodes) > MAX_EPISODES:
            self._episodes.popitem(last=False)
        return episode


def episode_id_of(meta: Any) -> str | None:
    """The episode a request's ``_meta`` names (a non-empty string), else None."""
    if not meta:
        return None
    value = meta.get(EPISODE_META_KEY) if isinstance(meta, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise EpisodeError(f"_meta[{EPISODE_META_KEY!r}] must be a non-empty string, not {value!r}")
    return value
