"""A recording's calls issued again on a backend, and the drift between the two: `kopa record diff A B` where B
is a backend string. Here, above the tools, not in kopa.record: it calls tools, and the recording layer
sits below them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from kopa.backends.base import KINDS, BackendError
from kopa.backends.parsed import names_a_backend
from kopa.backends.spec import open_backend
from kopa.record.drift import SNAPSHOT_FILE, DriftReport, compare_snapshots, recorded_calls
from kopa.tools.runtime import ToolRuntime


def reissue(snapshot: str | Path, backend_spec: str, directory: Path) -> Path:
    """Issue every call of a snapshot again on a backend, recording into `directory`; the new snapshot."""
    calls = recorded_calls(snapshot)
    backend = open_backend(f"record:{directory}@{backend_spec}")
    runtime = ToolRuntime(backend)
    try:
        auths = [runtime.catalog[tool].auth for tool in {tool for tool, _ in calls} if tool in runtime.catalog]
        for key_id in sorted({auth.key_id for auth in auths if auth}):
            runtime.state.store_key(key_id, backend.issue_key(key_id))
        for tool, arguments in calls:
            runtime.call(tool, arguments)
    finally:
        runtime.client.close()
        backend.observer.snapshot.close()
    return directory / SNAPSHOT_FILE


def drift_report(a: str, b: str) -> DriftReport:
    """A and B are snapshots or recording directories; B may instead be a backend string (sim:…, live…)."""
    if Path(b).exists():
        return compare_snapshots(a, b)
    if not names_a_backend(b):  # a mistyped path would otherwise read as an unknown backend
        raise BackendError(f"{b!r} is neither a snapshot or recording (no such path) nor a backend string "
                           f"({', '.join(f'{k}:…' for k in KINDS)})")
    with tempfile.TemporaryDirectory(prefix="kopa-drift-") as tmp:
        fresh = reissue(a, b, Path(tmp) / "recording")
        return compare_snapshots(a, fresh, b_label=b)
