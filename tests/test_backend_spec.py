"""A backend string parsed once: its layers, what code outside kopa.backends asks of it, and the round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from kopa.backends.base import BackendError
from kopa.backends.parsed import BackendSpec, Layer, backend_kind, parse_backend

WRITTEN = ["sim", "sim:seed=7,scale=full", "live", "live:http://127.0.0.1:8800", "replay:runs/rec",
           "snapshot:runs/rec/snapshot.duckdb", "record:runs/rec,format=json@sim:scale=full",
           "faults:realistic,seed=3@record:runs/rec@sim", "faults:harsh@live:http://127.0.0.1:8800"]


@pytest.mark.parametrize("text", WRITTEN)
def test_every_documented_backend_string_parses_and_prints_back_as_written(text):
    assert str(BackendSpec.parse(text)) == text


def test_the_layers_outermost_first():
    spec = BackendSpec.parse("faults:realistic,seed=3@record:runs/rec,format=json@sim:seed=7")
    assert [layer.kind for layer in spec.layers] == ["faults", "record", "sim"]
    assert spec.layers[0] == Layer(kind="faults", target="realistic", options=(("seed", "3"),))
    assert spec.layers[1].option("format") == "json" and spec.layers[2].option("seed") == "7"
    assert spec.kind == "faults" and spec.records and spec.fault_seed == 3
    assert not BackendSpec.parse("sim").records and BackendSpec.parse("sim").fault_seed is None
    assert BackendSpec.parse("faults:realistic").fault_seed == 0  # no seed written: the profile's default 0


def test_a_live_base_url_is_one_target_whatever_it_holds():
    spec = BackendSpec.parse("live:http://127.0.0.1:8800/a,b")
    assert spec.layers == (Layer(kind="live", target="http://127.0.0.1:8800/a,b"),)


def test_a_recorded_synthesis_re_solves_without_its_recording_and_on_its_replay(tmp_path):
    fresh, replay = BackendSpec.parse("faults:realistic@record:runs/rec@sim:scale=full").recorded_backends()
    assert str(fresh) == "faults:realistic@sim:scale=full" and str(replay) == "faults:realistic@replay:runs/rec"
    assert BackendSpec.parse("sim").recorded_backends() == (BackendSpec.parse("sim"), None)
    absolute = BackendSpec.parse("record:rel/rec@sim").with_absolute_recording()
    assert Path(absolute.layers[0].target).is_absolute() and absolute.layers[0].target.endswith("rel/rec")


def test_a_new_fault_seed_replaces_the_outermost_one_only():
    spec = BackendSpec.parse("faults:realistic,seed=3@faults:harsh,seed=9@sim")
    assert str(spec.with_fault_seed(11)) == "faults:realistic,seed=11@faults:harsh,seed=9@sim"
    with pytest.raises(ValueError):
        BackendSpec.parse("sim").with_fault_seed(1)


@pytest.mark.parametrize(("text", "said"), [
    ("nope", "unknown backend 'nope'"),
    ("simm:seed=1", "did you mean sim?"),
    ("sim:sead=1", "unknown sim option 'sead'"),
    ("record:runs/rec", "record needs the backend to record from after @, e.g. record:runs/rec@live"),
    ("faults:realistic,sed=1@sim", "unknown faults option 'sed'"),
    ("faults:realistic@simm", "unknown backend 'simm'"),
])
def test_a_wrong_string_is_one_line_naming_what_is_wrong(text, said):
    with pytest.raises(BackendError) as error:
        parse_backend(text)
    assert said in str(error.value) and "\n" not in str(error.value)


def test_the_kind_alone_is_checked_without_opening_anything():
    assert backend_kind("replay:does/not/exist") == "replay"
    with pytest.raises(BackendError):
        backend_kind("sim:scale=huge,colour=red")  # an unknown option, though nothing is opened


def test_in_process_backends_send_straight_to_their_transport_with_the_same_answers(tmp_path, monkeypatch):
    """The simulator, faults over it and a recorder over it answer in this process: the runtime sends to the
    transport itself (no httpx.Client), and gets what an httpx.Client over the same transport gets. A live
    backend keeps its client, and a recorder over it waits out backoff on the real clock."""
    import httpx

    from kopa.backends import open_backend
    from kopa.backends.base import InProcessClient
    from kopa.backends.clock import RealClock
    from kopa.tools.runtime import ToolRuntime

    for spec in ("sim", "faults:harsh,seed=3@sim", f"record:{tmp_path / 'r'}@sim"):
        backend = open_backend(spec)
        assert backend.in_process and isinstance(backend.sender(), InProcessClient), spec
        direct = ToolRuntime(backend)
        through_httpx = ToolRuntime(open_backend(spec if "record" not in spec else "sim"), client=backend.client())
        for runtime in (direct, through_httpx):
            runtime.call("issue_api_key", {"platform": "krx"})
        args = {"likeSrtnCd": "005930", "numOfRows": 5}
        assert direct.call("get_stock_price_trend", args).model_dump() == \
            through_httpx.call("get_stock_price_trend", args).model_dump(), spec
        if backend.observer is not None:
            backend.observer.snapshot.close()
    monkeypatch.setenv("KOPA_TODAY", "2026-01-30")  # so no live backend asks a server for its date
    live = open_backend("live:http://127.0.0.1:9")
    assert not live.in_process and isinstance(live.sender(), httpx.Client)
    recorder = open_backend(f"record:{tmp_path / 'live'}@live:http://127.0.0.1:9")
    assert not recorder.in_process and isinstance(recorder.clock, RealClock)
    recorder.observer.snapshot.close()
