"""A recording's cassettes as stock vcrpy writes and reads them: one YAML cassette (vcrpy's default serializer)
per unit of work — an episode, a synthesized task, a command run (kopa.record.unit) — in `cassettes/`, with
keys removed the way vcrpy's `filter_query_parameters` and `filter_headers` remove them (the README shows the
filters that replay them for a client sending any key).

While a unit is open, each exchange is appended — one JSON line, whole, before the response is returned — to
`cassettes/.journal/<unit>.jsonl`, which its process holds locked; when the unit ends, the journal becomes
`<unit>.yaml` (written whole, then the journal removed). A kill -9 leaves a journal nobody holds: the next
recording into the folder seals it, and a replay reads it as it is without changing the folder. Exchanges are
looked up by the request without its keys (`CanonicalRequest.without_keys`), so any key is answered.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
import weakref
from collections import Counter, OrderedDict
from pathlib import Path
from typing import IO, Any

import orjson
import yaml
from vcr.serializers import yamlserializer

from kopa.fileio import write_atomic
from kopa.record.cassette import CassetteError, Exchange, body_in, body_out, corrupt, interaction_document
from kopa.record.fingerprint import CanonicalRequest, canonical_request
from kopa.record.secrets import KEY_HEADERS
from kopa.record.unit import current_unit, on_unit_end

CASSETTES = "cassettes"
JOURNAL = ".journal"
# parsed cassettes kept for serving, up to about this many bytes of cassette files: a test suite's recording (150
# cassettes of 10 calls: 2.4 MB) stays parsed whole, a 225-page fetch's cassette only while it is being read
_CACHED_BYTES = 256 * 2**20


def lookup_key(canonical: CanonicalRequest) -> str:
    return canonical.without_keys().fingerprint


def _stored_key(interaction: dict[str, Any]) -> str:
    request = interaction["request"]
    body = body_in(request.get("body"))
    return lookup_key(canonical_request(request["method"], request["uri"], {}, body))


def vcr_interaction(canonical: CanonicalRequest, request_headers: dict[str, str], status: int, reason: str,
                    headers: list[tuple[str, str]], body: bytes) -> dict[str, Any]:
    """One interaction as vcrpy records it with the README's filters: key parameters and key headers gone,
    every key value met on the request removed from the rest (kopa.record.secrets)."""
    document = interaction_document(canonical.without_keys(), request_headers, status, reason, headers, body, {},
                                    "json")
    interaction: dict[str, Any] = document["interactions"][0]
    interaction["request"]["headers"] = {k: v for k, v in interaction["request"]["headers"].items()
                                         if k.lower() not in KEY_HEADERS}
    return interaction


def exchange_of(interaction: dict[str, Any], canonical: CanonicalRequest | None = None) -> Exchange:
    """What replay serves; `canonical` (the request being answered) names it for the snapshot's http table."""
    request, response = interaction["request"], interaction["response"]
    return Exchange(
        fingerprint=canonical.fingerprint if canonical else _stored_key(interaction),
        method=request["method"], uri=canonical.url if canonical else request["uri"],
        status=int(response["status"]["code"]), reason=response["status"].get("message") or "",
        headers=[(name, value) for name, values in response["headers"].items() for value in values],
        body=body_in(response["body"]["string"]), metadata={})


def _json_bytes(value: Any) -> Any:
    """A binary body (a zip, as YAML holds it once sealed) in a journal line: base64, as cassette.py writes one."""
    if isinstance(value, bytes):
        return body_out(value, "json")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _for_yaml(interaction: dict[str, Any]) -> dict[str, Any]:
    """A journal line (JSON: a binary body in base64) as vcrpy's YAML holds it (a binary body as bytes)."""
    response = dict(interaction["response"])
    response["body"] = {"string": body_out(body_in(response["body"]["string"]), "yaml")}
    return {"request": interaction["request"], "response": response}


def read_cassette(path: Path) -> list[dict[str, Any]]:
    """The interactions of a unit cassette (YAML) or of a journal (JSON lines; a torn last line, which a kill
    mid-append leaves, is not an interaction)."""
    try:
        if path.suffix == ".jsonl":
            lines = path.read_bytes().split(b"\n")
            interactions = [orjson.loads(line) for line in lines[:-1]]
        else:
            interactions = list(yamlserializer.deserialize(path.read_text(encoding="utf-8"))["interactions"])
        for interaction in interactions:
            request, response = interaction["request"], interaction["response"]
            if not (isinstance(request["method"], str) and isinstance(request["uri"], str)
                    and isinstance(response["status"]["code"], int)):
                raise ValueError("an interaction without a request method, uri or response status")
        return interactions
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise corrupt(path, exc) from exc


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's where present, as vcrpy's own serializer


def write_cassette(path: Path, interactions: list[dict[str, Any]], metadata: dict[str, Any]) -> Path:
    """vcrpy's document as its YAML serializer writes it, but with Korean kept as Korean (allow_unicode: a
    person opening the cassette reads 라이트론, not \\uB77C…); vcrpy's loader reads either."""
    document = {"version": 1, "interactions": [_for_yaml(i) for i in interactions], "metadata": metadata}
    return write_atomic(path, yaml.dump(document, Dumper=_DUMPER, allow_unicode=True).encode("utf-8"))


def merged(existing: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`existing` and what `new` adds to it: a rerun of a unit adds only the exchanges (counted with their
    repeats, as vcrpy plays each recorded one once) that the cassette does not hold yet."""
    held = Counter(_stored_key(i) for i in existing)
    out = list(existing)
    for interaction in new:
        key = _stored_key(interaction)
        if held[key] > 0:
            held[key] -= 1
        else:
            out.append(interaction)
    return out


class _Journal:
    """One unit's journal, held (locked) by this process until it is sealed."""

    def __init__(self, path: Path, handle: IO[bytes]) -> None:
        self.path = path
        self.handle = handle
        self.interactions: list[dict[str, Any]] = []  # what it holds, kept for serving a repeated request


def _lock(path: Path) -> IO[bytes] | None:
    """The journal at `path` opened for appending and locked; None when another live process holds it."""
    handle = path.open("ab")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


_WRITING: weakref.WeakSet[UnitCassettes] = weakref.WeakSet()


def seal_open() -> None:
    """Seal every unit of every recording still open in this process: what a command does when it ends, so
    that its cassettes are whole on disk whether or not it closed its backend."""
    for store in list(_WRITING):
        store.close()


class UnitCassettes:
    """The `cassettes/` folder of a recording: look up, append into the current unit, seal."""

    def __init__(self, root: Path | str, *, writable: bool, metadata: dict[str, Any] | None = None) -> None:
        self.root = Path(root)
        self.dir = self.root / CASSETTES
        self.writable = writable
        self.metadata = metadata or {}
        self._lock = threading.RLock()
        self._index: dict[str, tuple[Path, int]] = {}
        self._journals: dict[str, _Journal] = {}
        self._cache: OrderedDict[Path, list[dict[str, Any]]] = OrderedDict()
        self._cached_bytes: dict[Path, int] = {}
        self._cached_total = 0
        if writable:
            (self.dir / JOURNAL).mkdir(parents=True, exist_ok=True)
            self._seal_leftovers()
        elif not self.dir.is_dir():
            raise CassetteError(f"{self.root}: no cassettes (expected the folder {self.dir})")
        for path in self.files():
            interactions = self._remember(path, read_cassette(path))  # parsed once: serving reads the same
            for i, interaction in enumerate(interactions):
                self._index.setdefault(_stored_key(interaction), (path, i))
        if writable:
            on_unit_end(self)
            self._finalizer = weakref.finalize(self, _seal_all, self._journals, self.dir, self.metadata)
            _WRITING.add(self)

    def files(self) -> list[Path]:
        """The sealed cassettes, then the journals (a killed run's, or a unit still open)."""
        return [*sorted(self.dir.glob("*.yaml")), *sorted((self.dir / JOURNAL).glob("*.jsonl"))]

    def lines(self) -> list[tuple[str, str]]:
        """(method, uri) of every recorded request, for naming the nearest one to a miss."""
        return [(i["request"]["method"], i["request"]["uri"])
                for path in self.files() for i in read_cassette(path)]

    def __len__(self) -> int:
        return len(self._index)

    def find(self, canonical: CanonicalRequest) -> dict[str, Any] | None:
        return self._find(lookup_key(canonical))

    def _find(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            where = self._index.get(key)
            if where is None:
                return None
            path, i = where
            open_journal = next((j for j in self._journals.values() if j.path == path), None)
            if open_journal is not None:  # a unit still being recorded: served from what it appended
                return open_journal.interactions[i]
            interactions = self._cache.get(path)
            if interactions is None:
                interactions = self._remember(path, read_cassette(path))
            else:
                self._cache.move_to_end(path)
            return interactions[i]

    def _remember(self, path: Path, interactions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self._forget(path)
        self._cache[path] = interactions
        self._cached_bytes[path] = path.stat().st_size if path.exists() else 0
        self._cached_total += self._cached_bytes[path]
        while self._cached_total > _CACHED_BYTES and len(self._cache) > 1:
            self._forget(next(iter(self._cache)))
        return interactions

    def _forget(self, path: Path) -> None:
        self._cache.pop(path, None)
        self._cached_total -= self._cached_bytes.pop(path, 0)

    def append(self, interaction: dict[str, Any], key: str) -> None:
        """Into the current unit's journal, whole, before the caller returns the response (`key`: its
        lookup_key)."""
        unit = current_unit()
        with self._lock:
            journal = self._journals.get(unit) or self._start(unit)
            journal.handle.write(orjson.dumps(interaction, default=_json_bytes) + b"\n")
            journal.handle.flush()
            self._index.setdefault(key, (journal.path, len(journal.interactions)))
            journal.interactions.append(interaction)

    # the interface the transports use (kopa.record.transports), as CassetteStore offers it for the older layout

    def serve(self, canonical: CanonicalRequest) -> Exchange | None:
        found = self.find(canonical)
        return exchange_of(found, canonical) if found is not None else None

    def reuse(self, canonical: CanonicalRequest) -> Exchange | None:
        """A request recorded before (in any unit): served from there, and put in the current unit's cassette
        too — a cassette holds every exchange its unit made, so it replays alone."""
        key = lookup_key(canonical)
        found = self._find(key)
        if found is None:
            return None
        self.append(found, key)
        return exchange_of(found, canonical)

    def save(self, canonical: CanonicalRequest, request_headers: dict[str, str], status: int, reason: str,
             headers: list[tuple[str, str]], body: bytes, metadata: dict[str, Any]) -> Exchange:
        interaction = vcr_interaction(canonical, request_headers, status, reason, headers, body)
        self.append(interaction, lookup_key(canonical))
        return exchange_of(interaction, canonical)

    def _start(self, unit: str) -> _Journal:
        for n in range(1, 1000):
            name = unit if n == 1 else f"{unit}~{n}"  # ~2: the same unit recorded by another live process
            path = self.dir / JOURNAL / f"{name}.jsonl"
            handle = _lock(path)
            if handle is not None:
                handle.truncate(0)  # a killed run's journal of this name was sealed on open
                self._journals[unit] = journal = _Journal(path, handle)
                return journal
        raise CassetteError(f"{self.dir}: 999 processes hold the unit {unit!r}")

    def unit_ended(self, unit: str) -> None:
        with self._lock:
            journal = self._journals.pop(unit, None)
            if journal is not None:
                self._seal(journal)

    def _seal(self, journal: _Journal) -> None:
        """The journal sealed, and what the index found in it found in the cassette instead (whose earlier
        interactions keep their places: a seal only appends)."""
        target = _seal_journal(journal, self.dir, self.metadata)
        self._index = {k: where for k, where in self._index.items() if where[0] != journal.path}
        for path in (journal.path, target):
            self._forget(path)
        if target.exists():
            for i, interaction in enumerate(read_cassette(target)):
                self._index.setdefault(_stored_key(interaction), (target, i))

    def _seal_leftovers(self) -> None:
        """Journals no live process holds (a killed run's) become cassettes."""
        for path in sorted((self.dir / JOURNAL).glob("*.jsonl")):
            handle = _lock(path)
            if handle is not None:
                _seal_journal(_Journal(path, handle), self.dir, self.metadata)

    def close(self) -> None:
        with self._lock:
            if self.writable:
                self._finalizer()


def _seal_journal(journal: _Journal, directory: Path, metadata: dict[str, Any]) -> Path:
    """`<unit>.jsonl` into `<unit>.yaml` (merged with what the cassette held), then the journal removed."""
    journal.handle.flush()
    new = journal.interactions or read_cassette(journal.path)  # a killed run's journal is read from disk
    target = directory / f"{journal.path.stem}.yaml"
    if new:
        existing = read_cassette(target) if target.exists() else []
        write_cassette(target, merged(existing, new), {"kopa": {**metadata, "unit": journal.path.stem}})
    journal.path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        journal.handle.close()  # the lock goes with it
    return target


def _seal_all(journals: dict[str, _Journal], directory: Path, metadata: dict[str, Any]) -> None:
    """What closing does (also the finalizer's work when a command drops the store or the interpreter exits)."""
    while journals:
        _, journal = journals.popitem()
        _seal_journal(journal, directory, metadata)


