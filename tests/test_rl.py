"""`kopa rl rollouts`: GRPO groups, their rewards and advantages, the Parquet, resume, and byte-identity
on the local executor (in process and two processes) and on Ray."""

from __future__ import annotations

import shutil
import statistics

import duckdb
import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.errors import UserError
from kopa.eval.task import task_set
from kopa.executor import LocalExecutor, open_executor
from kopa.rl.advantages import group_advantages, zero_variance
from kopa.rl.policy import HABITS, MixedPolicy, PolicySpecError, parse_mixed
from kopa.rl.rollouts import RolloutConfig, RolloutsError, forkable, generate
from kopa.rl.stats import group_stats, junction_type

# Four tasks of different shapes and reward bases: a key issuance, a fan-out, an ENVIRONMENT task.
TASKS = ["finance-001", "law-001", "education-004", "politics-001"]


def _expected(rewards, norm=True):
    """GRPO's advantages computed the textbook way (statistics.stdev: the sample std, n − 1)."""
    if len(rewards) == 1:
        return [rewards[0] / (1 + 1e-6)] if norm else list(rewards)
    mean, std = statistics.fmean(rewards), statistics.stdev(rewards)
    return [(r - mean) / (std + 1e-6) if norm else r - mean for r in rewards]


@pytest.mark.parametrize("rewards", [[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [1], [0],
                                     [1, 0, 1, 0, 0, 1, 1, 1]])
@pytest.mark.parametrize("norm", [True, False])
def test_group_advantages_are_grpo_s(rewards, norm):
    got = group_advantages([float(r) for r in rewards], norm_by_std=norm)
    assert got == pytest.approx(_expected([float(r) for r in rewards], norm), abs=1e-12)
    if len(rewards) > 1:
        assert sum(got) == pytest.approx(0.0, abs=1e-9)  # group-relative: they sum to zero
    assert zero_variance(rewards) == (len(set(rewards)) == 1)


def test_one_success_in_four_gets_advantage_one_and_a_half():
    # mean 1/4, sample std 1/2: (1 − 1/4) / (1/2) = 1.5 and (0 − 1/4) / (1/2) = −0.5
    assert group_advantages([1.0, 0.0, 0.0, 0.0]) == pytest.approx([1.5, -0.5, -0.5, -0.5], abs=1e-5)


def test_mixed_policy_draws_per_task_and_rollout_only():
    a, b = MixedPolicy(seed=3), MixedPolicy(seed=3)
    keys = [(f"t{i}", r) for i in range(50) for r in range(4)]
    assert [a.choose(*k) for k in keys] == [b.choose(*k) for k in reversed(keys)][::-1]
    chosen = [a.choose(*k) for k in keys]
    assert set(chosen) == {"oracle", *HABITS}
    assert 0.35 < chosen.count("oracle") / len(chosen) < 0.65
    assert [MixedPolicy(seed=4).choose(*k) for k in keys] != chosen  # another seed, other draws
    assert {MixedPolicy(oracle_share=1.0).choose(*k) for k in keys} == {"oracle"}
    assert "oracle" not in {MixedPolicy(oracle_share=0.0).choose(*k) for k in keys}


def test_mixed_policy_spelling():
    assert parse_mixed("mixed", 0) == MixedPolicy()
    assert parse_mixed("mixed:0.7,skip_key", 2) == MixedPolicy(seed=2, oracle_share=0.7, habits=("skip_key",))
    for bad in ("mixed:1.5", "mixed:lots", "mixed:0.5,guess"):
        with pytest.raises(PolicySpecError):
            parse_mixed(bad, 0)


def test_junction_types_of_kopa_bench():
    kinds = {junction_type(t) for t in task_set().tasks()}
    assert kinds <= {"SEQ", "FAN", "PAR", "MIXED"} and {"SEQ", "FAN", "PAR"} <= kinds


def test_a_synthesized_task_s_junction_type_is_its_pattern_category():
    task = task_set().tasks()[0]
    assert junction_type(task.model_copy(update={"tags": ["edge-synth", "DRV"]})) == "DRV"
    assert junction_type(task.model_copy(update={"tags": ["edge-synth", "SEQ+CMP"]})) == "MIXED"


@pytest.fixture(scope="module")
def config() -> RolloutConfig:
    return RolloutConfig(policy="mixed:0.5", n=4, only=TASKS)


@pytest.fixture(scope="module")
def in_process(tmp_path_factory, _isolated_cache, config):
    folder = tmp_path_factory.mktemp("rl") / "one"
    groups = generate(config, folder)
    return folder, groups, (folder / "rollouts.parquet").read_bytes()


def _table(path):
    con = duckdb.connect()
    try:
        cursor = con.execute(f"SELECT * FROM read_parquet('{path}') ORDER BY group_index, rollout")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    finally:
        con.close()


def test_parquet_has_one_row_per_rollout_with_grpo_advantages(in_process, config):
    folder, _groups, _ = in_process
    table = _table(folder / "rollouts.parquet")
    assert len(table) == len(TASKS) * 4
    assert [r["task_id"] for r in table[::4]] == [t.id for t in task_set().tasks() if t.id in TASKS]
    for index in range(len(TASKS)):
        rows = table[index * 4:(index + 1) * 4]
        assert [r["rollout"] for r in rows] == [0, 1, 2, 3]
        rewards = [r["reward"] for r in rows]
        assert set(rewards) <= {0.0, 1.0}
        assert [r["advantage"] for r in rows] == pytest.approx(_expected(rewards), abs=1e-9)
        assert all(r["group_zero_variance"] == (len(set(rewards)) == 1) for r in rows)
        assert all(r["group_pass_at_n"] == (1.0 in rewards) for r in rows)
        assert all(r["group_mean"] == pytest.approx(statistics.fmean(rewards), abs=1e-12) for r in rows)
    for row in table:
        provenance = orjson.loads(row["provenance"])
        assert provenance["backend"] == "sim" and provenance["played"] == row["played"]
        messages = orjson.loads(row["messages"])
        assert messages[0]["role"] == "system" and messages[1]["role"] == "user"
        calls = orjson.loads(row["tool_calls"])
        assert row["calls"] == len(calls)
        assert sum(len(m.get("tool_calls", [])) for m in messages) == len(calls)
        if row["played"] == "oracle":  # the targets are the oracle's own results: it always earns 1
            assert row["reward"] == 1.0
    assert {r["played"] for r in table} >= {"oracle"}
    assert any(r["reward"] == 0.0 for r in table)  # the habits fail somewhere: there is a signal


def test_reward_is_the_basis_verdict(in_process):
    folder, _groups, _ = in_process
    for row in _table(folder / "rollouts.parquet"):
        verdicts = [v for v in (row["response"], row["environment"]) if v is not None]
        assert verdicts and row["reward"] == float(all(verdicts))
        assert (row["environment"] is not None) == ("ENVIRONMENT" in row["reward_basis"])


def test_statistics_match_the_rows(in_process, config):
    folder, _groups, _ = in_process
    stats = orjson.loads((folder / "stats.json").read_bytes())
    table = _table(folder / "rollouts.parquet")
    by_task: dict[str, list[float]] = {}
    for r in table:
        by_task.setdefault(r["task_id"], []).append(r["reward"])
    assert stats["pass_at_1"] == pytest.approx(statistics.fmean(r["reward"] for r in table), abs=1e-6)
    assert stats["pass_at_n"] == pytest.approx(statistics.fmean(max(v) for v in by_task.values()), abs=1e-6)
    assert stats["zero_variance"] == pytest.approx(
        statistics.fmean(len(set(v)) == 1 for v in by_task.values()), abs=1e-6)
    assert stats["rollouts"] == len(table) and stats["groups"] == len(TASKS)
    assert sum(s["groups"] for s in stats["by_domain"]) == len(TASKS)
    assert "pass@4" in (folder / "report.md").read_text(encoding="utf-8")
    assert (folder / "plots" / "groups.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_std_normalisation_advantages_are_reward_minus_mean(tmp_path, in_process, config):
    folder = tmp_path / "drgrpo"
    generate(config.model_copy(update={"norm_adv_by_std": False}), folder)
    table = _table(folder / "rollouts.parquet")
    for index in range(len(TASKS)):
        rows = table[index * 4:(index + 1) * 4]
        mean = statistics.fmean(r["reward"] for r in rows)
        assert [r["advantage"] for r in rows] == pytest.approx([r["reward"] - mean for r in rows], abs=1e-12)


def test_resume_after_an_interruption_gives_the_same_bytes(tmp_path, in_process, config):
    folder = tmp_path / "resumed"
    generate(config.model_copy(update={"only": TASKS[:2]}), folder, force=True)  # another config: refused …
    with pytest.raises(RolloutsError, match="another configuration"):
        generate(config, folder)
    generate(config, folder, force=True)  # … unless forced
    lines = (folder / "groups.jsonl").read_bytes().splitlines(keepends=True)
    (folder / "groups.jsonl").write_bytes(b"".join(lines[:2]) + lines[2][:40])  # killed mid-line
    (folder / "rollouts.parquet").unlink()
    played = []
    generate(config, folder, on_group=played.append)
    order = [t.id for t in task_set().tasks() if t.id in TASKS]
    assert played == order[2:]
    assert (folder / "rollouts.parquet").read_bytes() == in_process[2]


def test_two_local_processes_write_the_same_bytes(tmp_path, in_process, config):
    with LocalExecutor(2) as executor:
        generate(config, tmp_path / "two", executor=executor)
    assert (tmp_path / "two" / "rollouts.parquet").read_bytes() == in_process[2]
    assert (tmp_path / "two" / "groups.jsonl").read_bytes() == (in_process[0] / "groups.jsonl").read_bytes()


def test_workers_forked_after_the_load_write_the_same_bytes(tmp_path, in_process, config):
    """`kopa rl rollouts --workers 2` with an offline policy: the parent loads the task set and the world, the
    workers are forked from it (they share it copy-on-write) — the same bytes as one process."""
    assert forkable(config) and not forkable(config.model_copy(update={"policy": "openai"}))
    with open_executor("local", workers=2, fork=forkable(config)) as executor:
        assert getattr(executor, "fork", False)
        generate(config, tmp_path / "forked", executor=executor)
    assert (tmp_path / "forked" / "rollouts.parquet").read_bytes() == in_process[2]
    assert (tmp_path / "forked" / "groups.jsonl").read_bytes() == (in_process[0] / "groups.jsonl").read_bytes()


@pytest.mark.ray
def test_ray_writes_the_same_bytes(tmp_path, in_process, config):
    pytest.importorskip("ray")
    with open_executor("ray", workers=2) as executor:
        generate(config, tmp_path / "ray", executor=executor)
    assert (tmp_path / "ray" / "rollouts.parquet").read_bytes() == in_process[2]


def test_group_stats_of_hand_made_groups():
    def group(task, domain, rewards):
        return {"task_id": task, "domain": domain, "junction": "SEQ", "rollouts": [
            {"reward": r, "played": "oracle", "calls": 2, "malformed_calls": 0, "llm_calls": 1,
             "prompt_tokens": 10, "completion_tokens": 5, "error": None} for r in rewards]}

    stats = group_stats([group("a", "law", [1, 1, 1, 1]), group("b", "law", [0, 0, 0, 0]),
                         group("c", "finance", [1, 0, 0, 0])], 4)
    assert stats.zero_variance == pytest.approx(2 / 3, abs=1e-6)
    assert (stats.all_passed, stats.all_failed) == (pytest.approx(1 / 3, abs=1e-6), pytest.approx(1 / 3, abs=1e-6))
    assert stats.pass_at_1 == pytest.approx((1 + 0 + 0.25) / 3, abs=1e-6)
    assert stats.pass_at_n == pytest.approx(2 / 3, abs=1e-6)
    assert stats.nonzero_advantage == pytest.approx(4 / 12, abs=1e-6)
    assert stats.max_abs_advantage == pytest.approx(1.5, abs=1e-5)
    assert (stats.llm_calls, stats.prompt_tokens, stats.completion_tokens) == (12, 120, 60)
    assert [(s.name, s.groups) for s in stats.by_domain] == [("finance", 1), ("law", 2)]


def test_cli_rollouts_prints_the_group_statistics(tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, ["rl", "rollouts", "--only", "finance-001,law-001", "-n", "2", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "zero-variance groups" in result.output and "pass@2" in result.output
    assert (out / "rollouts.parquet").exists()
    bad = CliRunner().invoke(main, ["rl", "rollouts", "--policy", "mixed:2", "--only", "finance-001",
                                    "-o", str(tmp_path / "bad")])
    assert bad.exit_code != 0 and "oracle share must be in [0, 1]" in bad.output
    assert isinstance(bad.exception, SystemExit | UserError)


def test_a_model_policy_samples_each_rollout_with_its_own_seed(tmp_path):
    """A scripted OpenAI-compatible server on loopback (tests/fakes): it answers the target for even
    sampling seeds and gives up for odd ones, so the rewards show which seed each rollout was sent."""
    from tests.fakes.chat_server import ChatServer, text

    found = task_set()
    target = found.targets()["law-014"]

    def reply(body):
        return text(target.answer if body["seed"] % 2 == 0 else "모르겠습니다.")

    with ChatServer([reply] * 4) as server:
        config = RolloutConfig(policy="openai", model="fake-model", base_url=server.base_url, only=["law-014"], n=4,
                               seed=0, temperature=1.0)
        generate(config, tmp_path / "model")
    assert server.errors == []
    assert sorted(r["seed"] for r in server.requests) == [0, 1, 2, 3]  # seed · 10000 + rollout
    assert {r["temperature"] for r in server.requests} == {1.0}
    table = _table(tmp_path / "model" / "rollouts.parquet")
    assert [r["reward"] for r in table] == [1.0, 0.0, 1.0, 0.0]
    assert [r["advantage"] for r in table] == pytest.approx(_expected([1.0, 0.0, 1.0, 0.0]), abs=1e-9)
    assert [r["played"] for r in table] == ["openai"] * 4
    stats = orjson.loads((tmp_path / "model" / "stats.json").read_bytes())
    # the server's usage: prompt 100 + request index, completion 10 per request
    assert (stats["llm_calls"], stats["prompt_tokens"], stats["completion_tokens"]) == (4, 406, 40)
    messages = orjson.loads(table[0]["messages"])
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]


def test_a_second_rollouts_run_on_one_folder_is_refused_while_the_first_writes(tmp_path, in_process, config):
    """Two `kopa rl rollouts` on one --out once gave 21 groups for 17 tasks: the second is refused now,
    and the folder keeps the first one's bytes."""
    from kopa.fileio import RunFolder

    folder, groups, parquet = in_process
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    refused = pytest.raises(RolloutsError, match=r"is being written by another `kopa rl rollouts` in process")
    with RunFolder(copy, what="rollouts", error=RolloutsError).writing("a first rollouts run"), refused:
        generate(config, copy)
    assert (copy / "rollouts.parquet").read_bytes() == parquet
    assert generate(config, copy) == groups
