"""`record:DIR[,format=vcr|json.gz|json|yaml]@INNER`, `replay:DIR`, `snapshot:FILE`: the recording layer as backends.

A recording directory holds `cassettes/` (format vcr, the default: one vcrpy YAML cassette per episode, task
or command run, kopa.record.unit_cassettes) or `interactions/` (the other formats: one cassette per exchange,
json.gz compressed), `snapshot.duckdb` (one row per tool call) and `recording.json` (what was recorded from,
and the clock it saw).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from kopa.backends.base import Backend, KeySource, fail, one_line, parse_options, suggest
from kopa.record.cassette import EXTENSIONS, CassetteError, CassetteStore, is_cassette_format
from kopa.record.recorder import SnapshotRecorder
from kopa.record.snapshot import Snapshot
from kopa.record.transports import CassetteLayout, RecordingTransport, ReplayTransport, SnapshotTransport
from kopa.record.unit_cassettes import UnitCassettes

MANIFEST = "recording.json"
# vcr: what stock vcrpy writes and reads (its default YAML serializer, one cassette per unit, keys filtered
# out), so a recording stands without kopa; json.gz: one compressed file per exchange, less than half the size.
UNIT_FORMAT = "vcr"
FORMATS = (UNIT_FORMAT, *EXTENSIONS)
DEFAULT_FORMAT = UNIT_FORMAT
SNAPSHOT = "snapshot.duckdb"


def open_layout(directory: Path, fmt: str, *, writable: bool, metadata: dict[str, Any] | None = None
                ) -> CassetteLayout:
    """The cassettes of a recording in the format its manifest names."""
    if fmt == UNIT_FORMAT:
        return UnitCassettes(directory, writable=writable, metadata=metadata)
    if not is_cassette_format(fmt):
        raise CassetteError(f"{directory}: unknown cassette format {fmt!r}; valid: {', '.join(FORMATS)}")
    return CassetteStore(directory, fmt)


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


def read_manifest(spec: str, directory: Path) -> dict[str, Any]:
    """The manifest of a recording; a missing, corrupt or incomplete one names the file."""
    path = directory / MANIFEST
    if not path.exists():
        hint = f"record one with record:{directory}@sim (or @live)"
        raise fail(spec, f"{directory} is not a recording (no {MANIFEST}); {hint}")
    try:
        manifest = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise fail(spec, f"{path}: not a recording manifest ({one_line(exc)})") from exc
    missing = [k for k in ("backend", "today", "format") if not isinstance(manifest, dict) or k not in manifest]
    if missing:
        raise fail(spec, f"{path}: not a recording manifest (missing {', '.join(missing)})")
    if manifest["format"] not in FORMATS:
        raise fail(spec, f"{path}: unknown cassette format {manifest['format']!r}; valid: {', '.join(FORMATS)}")
    try:
        dt.date.fromisoformat(manifest["today"])
    except (TypeError, ValueError):
        raise fail(spec, f"{path}: today={manifest['today']!r} is not a date (YYYY-MM-DD)") from None
    return manifest


def _location(spec: str, kind: str, rest: str, valid: tuple[str, ...]) -> tuple[Path, dict[str, str]]:
    location, _, option_text = rest.partition(",")
    if not location.strip():
        example = f"{kind}:runs/rec" + ("@sim" if kind == "record" else "")
        raise fail(spec, f"{kind} needs a path, e.g. {example}")
    return Path(location.strip()), parse_options(spec, kind, option_text, valid)


def open_recorded(kind: str, rest: str, spec: str | None = None, *, strict_keys: bool = False,
                  open_inner: Callable[..., Backend]) -> Backend:
    """`record:`, `replay:` or `snapshot:` — `open_inner` opens a recording's inner backend (it is
    `kopa.backends.spec.open_backend`, passed in so this module does not import the module that imports it)."""
    spec = spec if spec is not None else f"{kind}:{rest}"
    if kind == "record":
        return _open_record(spec, rest, strict_keys=strict_keys, open_inner=open_inner)
    if kind == "replay":
        directory, _ = _location(spec, kind, rest, ())
        manifest = read_manifest(spec, directory)
        folder = directory / ("cassettes" if manifest["format"] == UNIT_FORMAT else "interactions")
        if not folder.is_dir():
            raise fail(spec, f"{directory} holds no cassettes (no {folder}); record with record:{directory}@sim")
        store = open_layout(directory, manifest["format"], writable=False)  # a corrupt cassette: CassetteError
        return Backend("replay", ReplayTransport(store),
                       f"replay of {directory} ({manifest['backend']})", ReplayKeys(),
                       virtual_today=dt.date.fromisoformat(manifest["today"]),
                       provenance=f"replay of {manifest['backend']}", in_process=True)
    path, _ = _location(spec, kind, rest, ())
    if path.is_dir():
        path = path / SNAPSHOT
    if not path.exists():
        raise fail(spec, f"no snapshot at {path}")
    transport = SnapshotTransport(path)
    meta = transport.snapshot.meta()
    try:
        today = dt.date.fromisoformat(meta["today"]) if "today" in meta else None
    except ValueError:
        raise fail(spec, f"{path}: meta today={meta['today']!r} is not a date (YYYY-MM-DD)") from None
    return Backend("snapshot", transport, f"snapshot {path} ({meta.get('backend', '?')})", ReplayKeys(),
                   virtual_today=today, provenance=f"snapshot of {meta.get('backend', '?')}", in_process=True)


def _open_record(spec: str, rest: str, *, strict_keys: bool, open_inner: Callable[..., Backend]) -> Backend:
    """`record:DIR[,format=F]@INNER`. The inner backend must be named: a default of `live` would quietly
    send every request to the real hosts when the user meant to record the simulator."""
    target, at, inner_spec = rest.partition("@")
    directory, options = _location(spec, "record", target, ("format",))
    if not at or not inner_spec.strip():
        raise fail(spec, f"record needs the backend to record from after @, e.g. record:{directory}@live "
                         f"(the real hosts) or record:{directory}@sim (the simulator)")
    previous = directory / MANIFEST
    before = read_manifest(spec, directory) if previous.exists() else None
    # a recording goes on in the format it was started in, unless another is asked for (and refused below)
    fmt = options.get("format") or (before["format"] if before else DEFAULT_FORMAT)
    if fmt not in FORMATS:
        raise fail(spec, f"format={fmt!r} is not a cassette format{suggest(fmt, FORMATS)}; "
                         f"valid: {', '.join(FORMATS)}")
    inner = open_inner(inner_spec, strict_keys=strict_keys)
    if before is not None:
        if before["backend"] != inner.provenance:
            raise fail(spec, f"{directory} was recorded from {before['backend']!r}, not {inner.provenance!r}; "
                             "record into a new directory")
        if before["format"] != fmt:
            raise fail(spec, f"{directory} holds {before['format']} cassettes, not {fmt}: record into it with "
                             f"record:{directory},format={before['format']}@… (or convert it: kopa record "
                             f"convert {directory})")
    directory.mkdir(parents=True, exist_ok=True)
    today = inner.today().isoformat()
    manifest = {"backend": inner.provenance, "today": today, "format": fmt,
                "virtual_clock": inner.virtual_today is not None}
    tmp = previous.with_name(f".{MANIFEST}.tmp")
    tmp.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    os.replace(tmp, previous)  # whole or absent: a kill -9 here must not leave a manifest a rerun rejects
    snapshot = Snapshot(directory / SNAPSHOT)
    snapshot.set_meta("backend", inner.provenance)
    snapshot.set_meta("today", today)
    clock = _clock(inner)
    store = open_layout(directory, fmt, writable=True, metadata={"backend": inner.provenance, "today": today})
    transport = RecordingTransport(inner.transport, store, snapshot, clock, inner.provenance)
    return Backend("record", transport, f"record into {directory} from {inner.description}", inner.key_source,
                   simulator=inner.simulator, virtual_today=inner.virtual_today,
                   observer=SnapshotRecorder(snapshot, clock, inner.provenance), provenance=inner.provenance,
                   real_hosts=inner.real_hosts, in_process=inner.in_process,
                   clock=inner.clock)  # backoff while recording the real services waits for real
