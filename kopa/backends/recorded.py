"""`record:DIR[,format=json.gz|json|yaml][@INNER]`, `replay:DIR`, `snapshot:FILE`: the recording layer as backends.

A recording directory holds `interactions/` (one vcrpy cassette per exchange), `snapshot.duckdb`
(one row per tool call) and `recording.json` (what was recorded from, and the clock it saw).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson

from kopa.backends.spec import Backend, BackendError, KeySource, open_backend
from kopa.record.cassette import EXTENSIONS, CassetteStore
from kopa.record.recorder import SnapshotRecorder
from kopa.record.snapshot import Snapshot
from kopa.record.transports import RecordingTransport, ReplayTransport, SnapshotTransport

MANIFEST = "recording.json"
# Chosen by measurement (benchmark/perf/recording.py, 1,500 small calls): compact JSON with gzip level 1
# replays about as fast as plain JSON (~2,000 calls/s) and faster than vcrpy's YAML default (~900–1,600),
# at less than half the size of either (0.8 MB against 1.8 and 2.0 MB).
DEFAULT_FORMAT = "json.gz"
SNAPSHOT = "snapshot.duckdb"


class ReplayKeys(KeySource):
    """Recorded requests are fingerprinted without their keys, so replay needs none: a placeholder
    travels where a key would, and no real key is ever read."""

    def issue(self, key_id: str) -> str:
        return f"replay-{key_id}"


def _clock(backend: Backend):
    if backend.virtual_today is not None:
        today = backend.virtual_today.isoformat()
        return lambda: today
    return lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _read_manifest(directory: Path) -> dict:
    path = directory / MANIFEST
    if not path.exists():
        raise BackendError(f"{directory} is not a recording (no {MANIFEST}); record one with record:{directory}@…")
    return orjson.loads(path.read_bytes())


def open_recorded(kind: str, rest: str, *, strict_keys: bool = False) -> Backend:
    if not rest:
        raise BackendError(f"{kind}: needs a path, e.g. {kind}:runs/rec" + ("@sim" if kind == "record" else ""))
    if kind == "record":
        target, _, inner_spec = rest.partition("@")
        location, *options = target.split(",")
        fmt = dict(o.split("=", 1) for o in options if "=" in o).get("format", DEFAULT_FORMAT)
        if fmt not in EXTENSIONS:
            raise BackendError(f"record: unknown cassette format {fmt!r}; one of {sorted(EXTENSIONS)}")
        directory = Path(location)
        inner = open_backend(inner_spec or "live", strict_keys=strict_keys)
        directory.mkdir(parents=True, exist_ok=True)
        manifest = {"backend": inner.provenance, "today": inner.today().isoformat(), "format": fmt,
                    "virtual_clock": inner.virtual_today is not None}
        previous = directory / MANIFEST
        if previous.exists() and orjson.loads(previous.read_bytes())["backend"] != inner.provenance:
            raise BackendError(f"{directory} was recorded from {orjson.loads(previous.read_bytes())['backend']!r}, "
                               f"not {inner.provenance!r}; record into a new directory")
        previous.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
        snapshot = Snapshot(directory / SNAPSHOT)
        snapshot.set_meta("backend", inner.provenance)
        snapshot.set_meta("today", manifest["today"])
        clock = _clock(inner)
        transport = RecordingTransport(inner.transport, CassetteStore(directory, manifest["format"]), snapshot,
                                       clock, inner.provenance)
        return Backend("record", transport, f"record into {directory} from {inner.description}", inner.key_source,
                       simulator=inner.simulator, virtual_today=inner.virtual_today,
                       observer=SnapshotRecorder(snapshot, clock, inner.provenance),
                       provenance=inner.provenance)
    if kind == "replay":
        directory = Path(rest)
        manifest = _read_manifest(directory)
        return Backend("replay", ReplayTransport(CassetteStore(directory, manifest["format"])),
                       f"replay of {directory} ({manifest['backend']})", ReplayKeys(),
                       virtual_today=dt.date.fromisoformat(manifest["today"]),
                       provenance=f"replay of {manifest['backend']}")
    path = Path(rest)
    if path.is_dir():
        path = path / SNAPSHOT
    if not path.exists():
        raise BackendError(f"no snapshot at {path}")
    transport = SnapshotTransport(path)
    meta = dict(transport.snapshot.query("SELECT key, value FROM meta"))
    return Backend("snapshot", transport, f"snapshot {path} ({meta.get('backend', '?')})", ReplayKeys(),
                   virtual_today=dt.date.fromisoformat(meta["today"]) if "today" in meta else None,
                   provenance=f"snapshot of {meta.get('backend', '?')}")
