"""No key reaches disk: the committed recordings are clean, and a key planted in any encoding is found."""

from __future__ import annotations

import base64
import gzip
import shutil
from pathlib import Path

import duckdb
import pytest

from kopa.record.cassette import decode, encode
from kopa.record.scan import scan_paths

ROOT = Path(__file__).parents[1]
FIXTURE = ROOT / "cassettes" / "demo"
KEY = "Zq7PlantedKey0123456789abcdef"


def test_every_committed_recording_is_clean():
    """Cassettes, snapshots and the rendered envelopes syrupy keeps (test sources are code, not recordings)."""
    assert (FIXTURE / "snapshot.duckdb").exists()
    assert scan_paths([ROOT / "cassettes", ROOT / "tests" / "__snapshots__"]) == []


def _one_cassette(tmp_path: Path, host_part: str) -> tuple[Path, dict]:
    source = next(p for p in sorted(FIXTURE.rglob("*.json.gz")) if host_part in decode(p.read_bytes(), "json.gz")
                  ["interactions"][0]["request"]["uri"])
    target = tmp_path / source.name
    shutil.copy(source, target)
    return target, decode(target.read_bytes(), "json.gz")


def _plant(path: Path, document: dict) -> list:
    path.write_bytes(encode(document, "json.gz"))
    return scan_paths([path])


def test_planted_key_in_the_query_is_found(tmp_path):
    path, doc = _one_cassette(tmp_path, "opendart")
    doc["interactions"][0]["request"]["uri"] = doc["interactions"][0]["request"]["uri"].replace(
        "crtfc_key=REDACTED", f"crtfc_key={KEY}")
    assert _plant(path, doc)


def test_planted_key_in_the_path_segment_is_found(tmp_path):
    path, doc = _one_cassette(tmp_path, "openapi.seoul.go.kr")
    doc["interactions"][0]["request"]["uri"] = doc["interactions"][0]["request"]["uri"].replace("/REDACTED/", f"/{KEY}/")
    findings = _plant(path, doc)
    assert any("path segment" in f.where for f in findings)


def test_planted_key_in_a_header_is_found(tmp_path):
    path, doc = _one_cassette(tmp_path, "apis.data.go.kr")
    doc["interactions"][0]["request"]["headers"]["AUTH_KEY"] = [KEY]
    assert any("header" in f.where for f in _plant(path, doc))


def test_planted_key_in_the_body_is_found(tmp_path):
    path, doc = _one_cassette(tmp_path, "open.neis.go.kr")
    body = doc["interactions"][0]["response"]["body"]
    body["string"] = body["string"].replace('"정상 처리되었습니다."', f'"정상 처리되었습니다.", "KEY": "{KEY}"')
    assert any("response body" in f.where for f in _plant(path, doc))


def test_planted_key_in_a_compressed_body_is_found(tmp_path):
    path, doc = _one_cassette(tmp_path, "open.neis.go.kr")
    payload = gzip.compress(f'{{"note": "echo", "serviceKey": "{KEY}"}}'.encode())
    doc["interactions"][0]["response"]["body"]["string"] = {"encoding": "base64",
                                                            "data": base64.b64encode(payload).decode()}
    findings = _plant(path, doc)
    assert any("gzip" in f.where for f in findings)


def test_known_key_value_anywhere_is_found(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPA_LAW_KEY", KEY)
    path, doc = _one_cassette(tmp_path, "law.go.kr")
    doc["interactions"][0]["response"]["body"]["string"] += f" user {KEY} not registered"
    assert _plant(path, doc)


@pytest.mark.parametrize("column", ["arguments", "error_message"])
def test_planted_key_in_a_snapshot_is_found(tmp_path, column):
    copy = tmp_path / "snapshot.duckdb"
    shutil.copy(FIXTURE / "snapshot.duckdb", copy)
    con = duckdb.connect(str(copy))
    value = f'{{"crtfc_key": "{KEY}"}}' if column == "arguments" else f"invalid key: OC={KEY}"
    con.execute(f"UPDATE calls SET {column} = ? WHERE seq = 1", [value])
    con.close()
    assert scan_paths([copy])
