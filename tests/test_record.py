"""Recording: record from the served simulator, replay offline byte for byte, resume after kill -9."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from kopa.backends import open_backend
from kopa.demo import CHAINS
from kopa.record.snapshot import Snapshot, call_id
from kopa.record.transports import ReplayMiss
from kopa.tools.runtime import ToolRuntime
from sim.serve import SimServer

KEY_IDS = ("dart", "krx", "data_go_kr", "ex", "seoul", "neis", "schoolinfo", "hrd", "law", "assembly", "gg")


def run_chains(backend, chains=CHAINS) -> list[str]:
    """Every step's full tool result, serialised: what must be byte-identical across backends."""
    out = []
    for chain in chains:
        runtime = ToolRuntime(backend)
        results = []
        for step in chain.steps:
            results.append(runtime.call(step.tool, step.args(results)))
        out.extend(r.model_dump_json() for r in results)
    return out


@pytest.fixture()
def fixture_keys(monkeypatch):
    for key_id in KEY_IDS:
        monkeypatch.setenv(f"KOPA_{key_id.upper()}_KEY", f"planted-{key_id}-secret-0123456789")


@pytest.fixture()
def blocked_network(monkeypatch):
    """Any attempt to open a socket fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened during replay")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture()
def recorded(tmp_path, simulator, fixture_keys):
    """The demo chains recorded from `kopa sim serve` on loopback through the live backend; the
    server is stopped before the test body runs."""
    directory = tmp_path / "rec"
    with SimServer(simulator) as server:
        backend = open_backend(f"record:{directory}@live:{server.url}")
        results = run_chains(backend)
        backend.observer.snapshot.close()
    return directory, results


def test_replay_is_byte_identical_with_the_network_blocked(recorded, blocked_network):
    directory, live_results = recorded
    assert run_chains(open_backend(f"replay:{directory}")) == live_results


def test_snapshot_backend_is_byte_identical(recorded, blocked_network):
    directory, live_results = recorded
    assert run_chains(open_backend(f"snapshot:{directory / 'snapshot.duckdb'}")) == live_results


def test_unrecorded_request_names_the_nearest_recorded_one(recorded, blocked_network):
    directory, _ = recorded
    runtime = ToolRuntime(open_backend(f"replay:{directory}"))
    runtime.call("issue_api_key", {"platform": "gg"})
    with pytest.raises(ReplayMiss) as caught:
        runtime.call("find_gg_sigun_code", {"SIGUN_NM": "성남시"})
    message = str(caught.value)
    assert "SigunCdInfo" in message and "nearest recorded:" in message
    assert "SIGUN_NM=" in message  # the differing parameter is named


def test_snapshot_rows_describe_each_call(recorded):
    directory, _ = recorded
    with Snapshot(directory / "snapshot.duckdb", read_only=True) as snap:
        rows = snap.query("SELECT tool, ok, status, record_count, total_count, backend, captured_at FROM calls "
                          "WHERE tool = 'find_dart_corp_code' ORDER BY seq")
        assert rows and all(r[1] and r[2] == "ok" and r[3] >= 1 for r in rows)
        assert all(r[5].startswith("live via http://127.0.0.1:") and r[6] == "2026-01-30" for r in rows)
        names = snap.query("SELECT record->>'corp_name' FROM records JOIN calls USING (call_id) "
                           "WHERE tool = 'find_dart_corp_code' ORDER BY seq, idx")
        assert ("라이트론",) in names


def test_recordings_hold_no_key(recorded):
    from kopa.record.scan import scan_paths

    directory, _ = recorded
    assert scan_paths([directory]) == []
    for path in directory.rglob("*"):
        if path.is_file():
            assert b"planted-" not in path.read_bytes()


def test_recording_from_the_in_process_simulator(tmp_path, backend):
    rec = open_backend(f"record:{tmp_path / 'r'}@sim")
    first = run_chains(rec, CHAINS[:2])
    rec.observer.snapshot.close()
    assert first == run_chains(backend, CHAINS[:2])  # recording does not change what the run sees


def test_recording_into_a_directory_of_another_backend_is_refused(tmp_path, simulator, fixture_keys):
    open_backend(f"record:{tmp_path / 'r'}@sim").observer.snapshot.close()
    from kopa.backends import BackendError

    with pytest.raises(BackendError, match="recorded from"):
        open_backend(f"record:{tmp_path / 'r'}@sim:seed=9")


CHILD = textwrap.dedent("""
    import sys
    from kopa.backends import open_backend
    from kopa.tools.runtime import ToolRuntime
    backend = open_backend(sys.argv[1])
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "krx"})
    for day in sys.argv[2:]:
        result = runtime.call("get_stock_price_trend", {"basDt": day, "numOfRows": 50})
        print("done", day, result.ok, flush=True)
    print("recorded", backend.transport.recorded, "reused", backend.transport.reused, flush=True)
""")


def _days(backend) -> list[str]:
    prices = backend.simulator.world.table("stock_daily_price")
    return sorted(set(prices.cols["basDt"].vocab.tolist()))[-40:]


def test_kill_9_then_rerun_records_only_what_is_missing(tmp_path, backend):
    days = _days(backend)
    directory = tmp_path / "rec"
    spec = f"record:{directory}@sim"
    env = dict(os.environ)
    child = subprocess.Popen([sys.executable, "-c", CHILD, spec, *days], stdout=subprocess.PIPE, text=True, env=env)
    finished = 0
    for line in child.stdout:
        if line.startswith("done"):
            finished += 1
        if finished == 15:
            child.send_signal(signal.SIGKILL)
            break
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    rerun = subprocess.run([sys.executable, "-c", CHILD, spec, *days], capture_output=True, text=True, env=env,
                           check=True).stdout.splitlines()
    recorded, reused = int(rerun[-1].split()[1]), int(rerun[-1].split()[3])
    assert reused >= 15 and recorded + reused == len(days)  # the 15 finished before the kill were not re-fetched
    with Snapshot(directory / "snapshot.duckdb", read_only=True) as snap:
        ids = [r[0] for r in snap.query("SELECT call_id FROM calls")]
        stored = snap.query("SELECT count(*) FROM records")[0][0]
        declared = snap.query("SELECT sum(record_count) FROM calls")[0][0]
    expected = {call_id("get_stock_price_trend", {"basDt": d, "numOfRows": 50}) for d in days}
    assert sorted(ids) == sorted(expected)  # every call, exactly once
    assert stored == declared > 0  # and every call's records exactly once


def test_kill_9_loses_no_call_the_snapshot_acknowledged(tmp_path, backend):
    """Snapshot writes are committed in batches: a recording killed between two commits keeps every call it
    finished, in the journal, and the next reader (read-only) sees them all, each with its records."""
    days = _days(backend)
    directory = tmp_path / "rec"
    child = subprocess.Popen([sys.executable, "-c", CHILD, f"record:{directory}@sim", *days], stdout=subprocess.PIPE,
                             text=True, env=dict(os.environ))
    finished = []
    for line in child.stdout:
        if line.startswith("done"):
            finished.append(line.split()[1])
        if len(finished) == 15:
            child.send_signal(signal.SIGKILL)
            break
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    journal = directory / "snapshot.duckdb.pending.jsonl"
    assert journal.stat().st_size > 0  # fewer than a batch: nothing was committed to DuckDB yet
    with open(journal, "ab") as torn:  # a kill mid-append leaves half a line, never acknowledged
        torn.write(b'{"kind": "call", "values": ["half')
    with Snapshot(directory / "snapshot.duckdb", read_only=True) as snap:
        ids = {r[0] for r in snap.query("SELECT call_id FROM calls")}
        counts = dict(snap.query("SELECT call_id, record_count FROM calls"))
        stored = dict(snap.query("SELECT call_id, count(*) FROM records GROUP BY call_id"))
        exchanges = snap.query("SELECT count(*) FROM http")[0][0]
    acknowledged = {call_id("get_stock_price_trend", {"basDt": d, "numOfRows": 50}) for d in finished}
    assert acknowledged <= ids  # every call the child reported done
    assert all(stored.get(c, 0) == counts[c] for c in ids)  # each with all its records
    assert exchanges >= len(acknowledged)
    assert not journal.exists()  # committed, so the journal is gone


def test_committed_fixture_replays_to_its_own_snapshot(blocked_network):
    """cassettes/demo (recorded from the served simulator) replays offline to exactly the records its
    snapshot holds for every call."""
    from pathlib import Path

    fixture = Path(__file__).parents[1] / "cassettes" / "demo"
    backend = open_backend(f"replay:{fixture}")
    with Snapshot(fixture / "snapshot.duckdb", read_only=True) as snap:
        calls = snap.query("SELECT call_id, tool, arguments, record_count FROM calls ORDER BY seq")
        assert len(calls) >= 20
        for cid, tool, arguments, record_count in calls:
            import orjson

            runtime = ToolRuntime(backend)
            runtime.call("issue_api_key", {"platform": runtime.catalog[tool].platform})
            result = runtime.call(tool, orjson.loads(arguments))
            stored = [orjson.loads(r) for (r,) in snap.query(
                "SELECT record FROM records WHERE call_id = ? ORDER BY idx", [cid])]
            assert len(result.records) == record_count
            assert result.records == stored


def test_cassettes_are_standard_vcrpy_documents(tmp_path, backend):
    """A cassette recorded in vcrpy's YAML replays through vcrpy itself, with a plain httpx client."""
    import httpx
    import vcr

    rec = open_backend(f"record:{tmp_path / 'y'},format=yaml@sim")
    runtime = ToolRuntime(rec)
    runtime.call("issue_api_key", {"platform": "gg"})
    expected = runtime.call("find_gg_sigun_code", {"SIGUN_NM": "수원시"})
    rec.observer.snapshot.close()
    (cassette,) = list((tmp_path / "y" / "interactions").rglob("*.yaml"))
    uri = vcr.serialize.deserialize(cassette.read_text(), vcr.serializers.yamlserializer)[0][0].uri
    with vcr.use_cassette(str(cassette), serializer="yaml", record_mode="none"):
        body = httpx.get(uri).json()
    assert body["SigunCdInfo"][1]["row"] == expected.records


def test_a_finished_command_leaves_a_snapshot_plain_duckdb_reads_whole(tmp_path):
    """`kopa call --record` ends with sys.exit and never closes its backend: the snapshot's finalizer commits
    the journal, so plain DuckDB (no kopa) counts the call, its records and its HTTP exchange."""
    import subprocess
    import sys

    import duckdb

    done = subprocess.run([sys.executable, "-m", "kopa.cli", "call", "find_dart_corp_code", "corp_name=라이트론",
                           "--record", str(tmp_path / "rec")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "rec" / "snapshot.duckdb.pending.jsonl").exists()
    con = duckdb.connect(str(tmp_path / "rec" / "snapshot.duckdb"), read_only=True)
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("calls", "records", "http")}
    assert counts == {"calls": 1, "records": 1, "http": 1}


def test_sigterm_commits_the_recording_before_the_command_exits(tmp_path):
    """A TERM (a CI timeout, a scheduler) ends `kopa bench run --record` as an exit does: status 143, the
    journal committed into snapshot.duckdb and removed, every call it had acknowledged readable by plain
    DuckDB."""
    import time

    import duckdb

    rec = tmp_path / "rec"
    journal = rec / "snapshot.duckdb.pending.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "kopa.cli", "bench", "run", "--policy", "oracle", "--record",
                              str(rec), "--out", str(tmp_path / "run")], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    acknowledged = 0
    deadline = time.monotonic() + 240
    while acknowledged < 3 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
        acknowledged = journal.read_bytes().count(b"\n") if journal.exists() else 0
    assert acknowledged >= 3, "the run never journalled three rows"
    child.send_signal(signal.SIGTERM)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 143, err[-2000:]
    assert not journal.exists()
    con = duckdb.connect(str(rec / "snapshot.duckdb"), read_only=True)
    rows = sum(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("calls", "http"))
    assert rows >= acknowledged  # a row journalled before the TERM is in the tables


def _readme_vcr():
    """The filters the README shows (the block after `<!-- vcrpy-filters -->`), run as a user pastes them."""
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- vcrpy-filters -->", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert len([line for line in block.splitlines() if line.strip()]) <= 10
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # our own README, as a user pastes it (no model or API text)
    return namespace["kopa_vcr"]


def test_stock_vcrpy_replays_a_unit_cassette_for_httpx_and_requests_with_another_key(tmp_path):
    """A recording's default cassettes are vcrpy's own: stock vcrpy, configured only with the README's filters,
    replays an episode's cassette to plain httpx and requests clients that send keys never recorded (a query
    key, Seoul's key in the path, KRX's key in a header), with the bodies kopa's tools read."""
    import httpx
    import requests

    from kopa.record.unit import cassette_unit

    rec = open_backend(f"record:{tmp_path / 'rec'}@sim")
    runtime = ToolRuntime(rec)
    with cassette_unit("my-episode"):
        for platform in ("dart", "seoul", "krx"):
            runtime.call("issue_api_key", {"platform": platform})
        company = runtime.call("get_dart_company_overview", {"corp_code": "00104083"})
        rides = runtime.call("get_seoul_subway_ridership", {"USE_DT": "20260125"})
        trades = runtime.call("get_krx_kospi_daily_trading", {"basDd": "20260127"})
    rec.transport.close()
    rec.observer.snapshot.close()
    cassette = tmp_path / "rec" / "cassettes" / "my-episode.yaml"
    assert not list((tmp_path / "rec" / "cassettes" / ".journal").iterdir())  # sealed when the unit ended
    dart = ("https://opendart.fss.or.kr/api/company.json", {"crtfc_key": "0" * 40, "corp_code": "00104083"})
    seoul = f"http://openapi.seoul.go.kr:8088/{'7' * 32}/json/CardSubwayStatsNew/1/100/20260125"
    krx = ("https://data-dbg.krx.co.kr/svc/apis/sto/stk_bydd_trd", {"basDd": "20260127"}, {"AUTH_KEY": "f" * 40})
    kopa_vcr = _readme_vcr()
    for get in (httpx.get, requests.get):
        with kopa_vcr.use_cassette(str(cassette)):
            assert get(dart[0], params=dart[1]).json()["corp_name"] == company.records[0]["corp_name"]
            answer = get(seoul).json()["CardSubwayStatsNew"]
            assert answer["list_total_count"] == rides.total_count and answer["row"][0]["SUB_STA_NM"] == \
                rides.records[0]["SUB_STA_NM"]
            assert get(krx[0], params=krx[1], headers=krx[2]).json()["OutBlock_1"][0] == trades.records[0]
    text = cassette.read_text(encoding="utf-8")
    assert "REDACTED" in text and "crtfc_key" not in text and "AUTH_KEY" not in text  # filtered, vcrpy's way
    assert company.records[0]["corp_name"] in text  # Korean kept as Korean, not \\uXXXX escapes


def test_convert_rewrites_an_older_recording_that_then_replays_the_same(tmp_path):
    """`kopa record convert` on a copy of the committed fixture (one json.gz file per exchange): every exchange
    replays from the new layout with the same status and body, for a request carrying a new key."""
    import shutil

    import httpx
    from click.testing import CliRunner

    from kopa.cli import main
    from kopa.record.cassette import CassetteStore, read_exchange
    from kopa.record.transports import ReplayTransport
    from kopa.record.unit_cassettes import UnitCassettes

    copy = tmp_path / "demo"
    shutil.copytree(Path(__file__).parents[1] / "cassettes" / "demo", copy)
    old = CassetteStore(copy, "json.gz")
    before = [read_exchange(p) for p in map(old.find, old.fingerprints()) if p is not None]
    done = CliRunner().invoke(main, ["record", "convert", str(copy)])
    assert done.exit_code == 0, done.output
    assert f"{len(before)} exchanges" in done.output and not (copy / "interactions").exists()
    assert orjson.loads((copy / "recording.json").read_bytes())["format"] == "vcr"
    replay = ReplayTransport(UnitCassettes(copy, writable=False))
    for exchange in before:
        url = exchange.uri.replace("REDACTED", "k3y" * 12)  # a key of the client's own, wherever one goes
        answer = replay.handle_request(httpx.Request(exchange.method, url))
        assert (answer.status_code, answer.read()) == (exchange.status, exchange.body), exchange.uri
    again = CliRunner().invoke(main, ["record", "convert", str(copy)])
    assert again.exit_code == 0 and "default layout already" in again.output


def test_the_served_simulator_tells_live_its_keys_and_the_real_services_name_the_variable(simulator, monkeypatch,
                                                                                            tmp_path):
    """`live:URL` against `kopa sim serve --strict-keys` runs with no KOPA_*_KEY set (the server publishes the
    keys it issues, and a recording through it holds none of them); against the real hosts a missing key
    names the variable to set."""
    from sim.app import Simulator
    from sim.keys import KeyPolicy

    for key_id in KEY_IDS:
        monkeypatch.delenv(f"KOPA_{key_id.upper()}_KEY", raising=False)
    strict = Simulator(simulator.world, KeyPolicy(seed=simulator.world.config.seed, strict=True))
    with SimServer(strict) as server:
        backend = open_backend(f"record:{tmp_path / 'rec'}@live:{server.url}")
        runtime = ToolRuntime(backend)
        runtime.call("issue_api_key", {"platform": "dart"})
        answer = runtime.call("get_dart_company_overview", {"corp_code": "00104083"})
        backend.transport.close()
        backend.observer.snapshot.close()
    assert answer.ok and answer.records[0]["corp_code"] == "00104083"
    issued = strict.keys.issue("dart")
    written = b"".join(p.read_bytes() for p in (tmp_path / "rec").rglob("*") if p.is_file())
    assert issued.encode() not in written
    refused = ToolRuntime(open_backend("live")).call("issue_api_key", {"platform": "dart"})
    assert refused.error is not None and "set the environment variable KOPA_DART_KEY" in refused.error.message
    from click.testing import CliRunner

    from kopa.cli import main

    stopped = CliRunner().invoke(main, ["bench", "run", "--policy", "oracle", "--only", "finance-001", "--backend",
                                        "live", "--out", str(tmp_path / "run")])
    assert stopped.exit_code == 2 and "KOPA_DART_KEY" in stopped.output, stopped.output
    assert not (tmp_path / "run" / "unplayed.jsonl").exists()


def test_a_binary_answer_reused_by_another_unit_is_in_both_cassettes(tmp_path):
    """DART's corpCode.xml is a zip: recorded in one episode's cassette (sealed, YAML !!binary), then served to
    the next episode from there and written into its cassette too — which stock vcrpy replays alone."""
    import httpx

    from kopa.record.unit import cassette_unit

    rec = open_backend(f"record:{tmp_path / 'rec'}@sim")
    runtime = ToolRuntime(rec)
    found = {}
    for unit in ("first", "second"):
        with cassette_unit(unit):
            runtime.call("issue_api_key", {"platform": "dart"})
            found[unit] = runtime.call("find_dart_corp_code", {"corp_name": "라이트론"})
    rec.transport.close()
    rec.observer.snapshot.close()
    assert found["first"].records == found["second"].records and found["second"].ok
    assert rec.transport.recorded == 1 and rec.transport.reused == 1
    second = tmp_path / "rec" / "cassettes" / "second.yaml"
    with _readme_vcr().use_cassette(str(second)):
        answer = httpx.get("https://opendart.fss.or.kr/api/corpCode.xml", params={"crtfc_key": "a" * 40})
    assert answer.content[:2] == b"PK"  # the zip itself, as the service sent it
