"""A task set records its world (world.json) and is played only on a backend serving that world (issue 22, item 4):
`kopa bench run --tasks` and `kopa rl rollouts --tasks` refuse another one in one line naming both, before any
episode runs and before the run folder is claimed; a set without world.json (KOPA-Bench) is not checked.

Small worlds only: seed 1 is built once per test session (about ten seconds); the full world never is."""

from __future__ import annotations

import orjson
import pytest
import yaml
from click.testing import CliRunner

from kopa.backends.spec import open_backend
from kopa.backends.world import (
    WORLD_FILE,
    WorldError,
    WorldStamp,
    check_world,
    open_checked,
    read_stamp,
    world_stamp,
    write_stamp,
)
from kopa.cli import main
from kopa.eval.task import task_set
from kopa.rl.rollouts import RolloutConfig
from kopa.rl.rollouts import generate as generate_rollouts
from kopa.synth.dataset import write_dataset

TASK = "finance-001"


def _tiny_set(root, stamp: WorldStamp | None):
    """A task set of one KOPA-Bench task and its target, recording `stamp` as its world (None: no world.json)."""
    bench = task_set()
    (root / "tasks").mkdir(parents=True)
    (root / "targets").mkdir()
    tasks = yaml.safe_load((bench.tasks_dir / "finance.yaml").read_text(encoding="utf-8"))["tasks"]
    (root / "tasks" / "finance.yaml").write_text(
        yaml.safe_dump({"tasks": [t for t in tasks if t["id"] == TASK]}, allow_unicode=True, sort_keys=False),
        encoding="utf-8")
    targets = orjson.loads((bench.targets_dir / "finance.json").read_bytes())
    (root / "targets" / "finance.json").write_bytes(orjson.dumps([t for t in targets if t["task_id"] == TASK]))
    write_stamp(root, stamp)
    return root


@pytest.fixture(scope="module")
def small() -> WorldStamp:
    stamp = world_stamp(open_backend("sim"))
    assert stamp is not None
    return stamp


@pytest.fixture
def stamped(tmp_path, small):
    return _tiny_set(tmp_path / "set", small)


def _other(small: WorldStamp, **update) -> WorldStamp:
    return small.model_copy(update=update)


# ------------------------------------------------------------------ the stamp of a backend


def test_a_sim_backend_is_stamped_with_its_world_and_wrappers_carry_it(small, tmp_path, monkeypatch):
    backend = open_backend("sim")
    assert (small.seed, small.scale, small.drift, small.epoch) == (0, "small", None, None)
    assert small.content_hash == backend.simulator.world.content_hash  # type: ignore[attr-defined]
    assert small.spec() == "sim" and _other(small, scale="full", seed=3).spec() == "sim:seed=3,scale=full"
    assert world_stamp(open_backend("faults:realistic@sim")) == small
    assert world_stamp(open_backend(f"record:{tmp_path / 'rec'}@sim")) == small
    assert world_stamp(open_backend("sim:drift=default,epoch=0")) == small  # epoch 0 serves the undrifted world
    drifted = world_stamp(open_backend("sim:drift=default,epoch=1"))
    assert drifted == _other(small, drift="default", epoch=1) and drifted.spec() == "sim:drift=default,epoch=1"
    monkeypatch.delenv("KOPA_LIVE_REDIRECT", raising=False)
    assert world_stamp(open_backend("live")) is None  # no simulator, no world: not checked


def test_world_json_round_trips_and_a_bad_one_names_the_file(tmp_path, small):
    write_stamp(tmp_path, small)
    assert read_stamp(tmp_path) == small
    write_stamp(tmp_path, None)
    assert not (tmp_path / WORLD_FILE).exists() and read_stamp(tmp_path) is None
    (tmp_path / WORLD_FILE).write_text('{"seed": "x"}')
    with pytest.raises(WorldError, match=f"{tmp_path / WORLD_FILE}: not a world stamp"):
        read_stamp(tmp_path)


# ------------------------------------------------------------------ the check


def test_a_set_built_on_seed_0_is_refused_by_seed_1_naming_both(stamped, small):
    assert open_checked(stamped, "sim") is not None  # accepted, and opened for the caller to play on
    with pytest.raises(WorldError) as caught:
        open_checked(stamped, "sim:seed=1")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{stamped} was built on the world sim seed=0 scale=small "
                              f"(content {small.content_hash[:8]}…); --backend sim:seed=1 is the world sim seed=1 "
                              "scale=small (content ")
    assert message.endswith(": pass --backend sim")


def test_a_wrapper_around_the_same_world_is_accepted(stamped, tmp_path):
    for spec in ("faults:realistic@sim", f"record:{tmp_path / 'rec'}@sim",
                 f"faults:harsh,seed=2@record:{tmp_path / 'r2'}@sim"):
        assert open_checked(stamped, spec) is not None, spec


def test_a_set_without_world_json_is_not_checked(tmp_path):
    root = _tiny_set(tmp_path / "set", None)
    assert open_checked(root, "sim:seed=1") is None  # nothing opened, nothing built
    check_world(root, open_backend("sim:seed=1"), "sim:seed=1")


def test_the_same_config_with_other_content_names_the_generator(stamped, small):
    write_stamp(stamped, _other(small, content_hash="0" * 64))
    with pytest.raises(WorldError, match=r"content 00000000…\); --backend sim is the world sim seed=0 scale=small "
                                         r"\(content .*generator has changed since; rewrite the targets on this "
                                         r"world with `kopa bench targets --tasks "):
        open_checked(stamped, "sim")


def test_a_differing_today_is_shown_on_both_sides(stamped, small):
    import datetime as dt

    write_stamp(stamped, _other(small, today=dt.date(2026, 1, 29)))
    with pytest.raises(WorldError, match=r"sim seed=0 scale=small today=2026-01-29 .*; --backend sim is the world "
                                         r"sim seed=0 scale=small today=2026-01-30 .*: pass --backend "
                                         r"sim:today=2026-01-29$"):
        open_checked(stamped, "sim")


# ------------------------------------------------------------------ the commands


def test_bench_run_plays_the_recorded_world_and_refuses_another_before_any_episode(stamped, tmp_path):
    runner = CliRunner()
    out = tmp_path / "ok"
    result = runner.invoke(main, ["bench", "run", "--tasks", str(stamped), "--policy", "oracle", "-n", "1",
                                  "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 episodes · pass@1 1.0000" in result.output
    refused = tmp_path / "refused"
    result = runner.invoke(main, ["bench", "run", "--tasks", str(stamped), "--policy", "oracle", "-n", "1",
                                  "--backend", "sim:seed=1", "--out", str(refused)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {stamped} was built on the world sim seed=0 "), lines
    assert "--backend sim:seed=1 is the world sim seed=1 scale=small" in lines[0]
    assert not refused.exists()  # the run folder is not claimed: the right backend then needs no --force
    result = runner.invoke(main, ["bench", "run", "--tasks", str(stamped), "--policy", "oracle", "-n", "1",
                                  "--faults", "realistic", "--out", str(tmp_path / "faults")])
    assert result.exit_code == 0, result.output


def test_rl_rollouts_refuse_another_world(stamped, small, tmp_path):
    # A recorded seed-1 world (its content made up) against `sim`: refused without building a world.
    write_stamp(stamped, _other(small, seed=1, content_hash="1" * 64))
    out = tmp_path / "rollouts"
    config = RolloutConfig(policy="oracle", n=1, task_set=str(stamped))
    with pytest.raises(WorldError, match=r"built on the world sim seed=1 scale=small \(content 11111111…\); "
                                         r"--backend sim is the world sim seed=0 .*: pass --backend sim:seed=1$"):
        generate_rollouts(config, out)
    assert not out.exists()
    write_stamp(stamped, small)
    groups = generate_rollouts(config, out)
    assert [g["rollouts"][0]["reward"] for g in groups] == [1.0]


def test_bench_targets_computes_on_the_recorded_world_and_rewrites_world_json(stamped, small):
    runner = CliRunner()
    stale = _other(small, content_hash="0" * 64)  # as if the world generator had changed since
    write_stamp(stamped, stale)
    result = runner.invoke(main, ["bench", "targets", "--tasks", str(stamped), "--domain", "finance"])
    assert result.exit_code == 2 and "leave out --domain" in result.output, result.output
    assert read_stamp(stamped) == stale
    result = runner.invoke(main, ["bench", "targets", "--tasks", str(stamped)])
    assert result.exit_code == 0, result.output
    assert read_stamp(stamped) == small
    assert orjson.loads((stamped / "targets" / "finance.json").read_bytes())[0]["task_id"] == TASK


def test_the_synthesized_task_set_records_the_world_it_was_given(tmp_path, small):
    config = {"graph_run": "g", "graph_sha256": "0", "seed": 0, "backend": "sim", "writer": "template"}
    write_dataset(tmp_path, [], config, small)
    assert read_stamp(tmp_path) == small
    write_dataset(tmp_path, [], config)  # rebuilt on a backend without a world: the old stamp goes
    assert read_stamp(tmp_path) is None
