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


AGENT_KEY = "sk-agent-Planted-7b1cQz93"


def _echoed_forms(key: str) -> dict[str, str]:
    """The key as a careless server echoes it, written here by hand (not by kopa's encoder): raw, URL-encoded,
    base64 on its own and base64 of a Basic credential (the key three bytes into the encoded text)."""
    from urllib.parse import quote

    return {"raw": key, "url": quote(key + "/+", safe=""),
            "base64": base64.b64encode(key.encode()).decode(),
            "basic": base64.b64encode(f"kopa:{key}".encode()).decode()}


@pytest.mark.parametrize("form", ["raw", "url", "base64", "basic"])
def test_record_scan_finds_a_known_key_in_each_encoding(tmp_path, monkeypatch, form):
    """`kopa record scan` with the key in the environment: exit 1 on a log line holding it in any of its forms."""
    from click.testing import CliRunner

    from kopa.cli import main

    monkeypatch.setenv("KOPA_AGENT_API_KEY", AGENT_KEY)
    echoed = _echoed_forms(AGENT_KEY)[form]
    (tmp_path / "server.log").write_text(f"401 Unauthorized: credential {echoed} refused\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["record", "scan", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "a configured key value appears" in result.output


def test_a_model_server_echoing_the_agent_key_in_three_encodings_leaves_it_in_no_written_file(tmp_path, monkeypatch):
    """An OpenAI-compatible server that refuses every request with the agent key echoed raw, URL-encoded and
    base64-encoded (alone and inside a Basic credential): `kopa bench run` keeps the episode unplayed with why,
    and no file it wrote holds any of those forms, nor the key."""
    from click.testing import CliRunner

    from kopa.cli import main
    from tests.fakes.chat_server import ChatServer, Refusal

    monkeypatch.setenv("KOPA_AGENT_API_KEY", AGENT_KEY)
    forms = _echoed_forms(AGENT_KEY)
    refusal = Refusal(500, "upstream rejected " + " ".join(f"{k}={v}" for k, v in forms.items()))
    out = tmp_path / "run"
    with ChatServer([refusal] * 2) as server:
        done = CliRunner().invoke(main, ["bench", "run", "--policy", "openai", "--role",
                                         f"agent=m@{server.base_url}", "--only", "finance-001", "-n", "1",
                                         "--workers", "1", "--llm-retries", "0", "--out", str(out)], prog_name="kopa")
    assert done.exit_code == 1 and "REDACTED" in (out / "unplayed.jsonl").read_text(encoding="utf-8")
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written
    hits = [(p.name, k) for p in written for k, v in forms.items()
            if v.rstrip("=") in p.read_bytes().decode("utf-8", errors="replace")]
    assert hits == [] and all(v.rstrip("=") not in done.output for v in forms.values())
    monkeypatch.setenv("KOPA_AGENT_API_KEY", AGENT_KEY)
    assert CliRunner().invoke(main, ["record", "scan", str(out)]).exit_code == 0  # and the scan agrees
