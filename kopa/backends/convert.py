"""`kopa record convert DIR`: a recording in the older layout (one cassette per exchange, `interactions/`) rewritten
in the default one (vcrpy YAML cassettes in `cassettes/`, keys filtered out as vcrpy filters them).

An older recording does not say which episode made which exchange, so it becomes one cassette, the command
run's (`run.yaml`), in the order of its requests' URLs. In place and safe to interrupt: the cassettes are
written whole first, then the manifest names the new format, and only then is `interactions/` removed — a
conversion cut short leaves a recording that replays as before (rerun it to finish).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import orjson

from kopa.backends.base import fail
from kopa.backends.recorded import MANIFEST, UNIT_FORMAT, read_manifest
from kopa.record.cassette import CassetteStore, read_exchange
from kopa.record.fingerprint import canonical_request
from kopa.record.unit import RUN_UNIT
from kopa.record.unit_cassettes import CASSETTES, read_cassette, vcr_interaction, write_cassette


@dataclass(frozen=True)
class Converted:
    exchanges: int
    cassette: Path | None  # None: the recording was in the default layout already


def convert_recording(directory: Path) -> Converted:
    spec = f"kopa record convert {directory}"
    manifest = read_manifest(spec, directory)
    target = directory / CASSETTES / f"{RUN_UNIT}.yaml"
    if manifest["format"] == UNIT_FORMAT:
        left = directory / "interactions"
        if left.is_dir():  # a conversion stopped after its manifest: what is left is the old copy
            shutil.rmtree(left)
        return Converted(len(read_cassette(target)) if target.exists() else 0, None)
    store = CassetteStore(directory, manifest["format"])
    exchanges = sorted((read_exchange(p) for p in map(store.find, store.fingerprints()) if p is not None),
                       key=lambda e: (e.uri, e.method, e.fingerprint))
    if not exchanges:
        raise fail(spec, f"{directory} holds no exchange to convert (no cassette under {store.dir})")
    interactions = [vcr_interaction(canonical_request(e.method, e.uri), {}, e.status, e.reason, e.headers, e.body)
                    for e in exchanges]
    write_cassette(target, interactions, {"kopa": {"backend": manifest["backend"], "today": manifest["today"],
                                                   "unit": RUN_UNIT, "converted_from": manifest["format"]}})
    tmp = directory / f".{MANIFEST}.tmp"
    tmp.write_bytes(orjson.dumps({**manifest, "format": UNIT_FORMAT}, option=orjson.OPT_INDENT_2))
    os.replace(tmp, directory / MANIFEST)
    shutil.rmtree(store.dir)
    return Converted(len(interactions), target)
