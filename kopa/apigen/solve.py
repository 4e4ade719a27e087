"""A named model's solve rate on each dataset, with kopa's own episode loop and scorers.

EDGE Phase B tasks are KOPA-Bench tasks: `kopa.eval.runner.run_bench` plays them with the OpenAI agent
policy and scores them (RESPONSE); solved = passed, and also, as an APIGen sample is scored, every reference
call matched (the comparison's common criterion). An APIGen sample has no final answer, only the calls
that answer it, so it becomes a task whose golden trajectory is those calls (one turn) and whose outcome
is the end state (ENVIRONMENT: the calls are reads, so the state is the issued keys); solved = passed with
ACTION correctness 1 — every reference call matched by kopa's BFCL-style call matcher.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from kopa.apigen.record import XRecord
from kopa.backends.spec import open_backend
from kopa.catalog.loader import Catalog
from kopa.eval.environment import Environment
from kopa.eval.episode import PredictedCall
from kopa.eval.runner import RunConfig, run_bench
from kopa.eval.scoring.episode import score_episode
from kopa.eval.targets import compute_target
from kopa.eval.task import GoldenStep, InjectedState, SetupAction, Task


def apigen_task(record: XRecord, catalog: Catalog, today: str) -> Task | None:
    """The sample as a task, or None when a call is not a catalog tool or no tool names a domain."""
    if not record.answers or any(c.name not in catalog for c in record.answers):
        return None
    tools = sorted({t.name for t in record.tools if t.name in catalog})
    domain = next((catalog[t].domain for t in tools if catalog[t].domain), None)
    if domain is None:
        return None
    platforms = sorted({catalog[t].platform for t in tools})
    keyed = sorted({catalog[t].platform for t in tools if catalog[t].auth is not None})
    steps = [GoldenStep(id=f"c{i + 1}", call=c.name, args=c.arguments) for i, c in enumerate(record.answers)]
    golden = steps if len(steps) == 1 else [GoldenStep(id="g1", parallel=steps)]
    state = InjectedState(predefined={"current_date": today},
                          setup=[SetupAction(tool="issue_api_key", args={"platform": p}) for p in keyed])
    return Task(id=record.id, query=record.query, domain=domain, platforms=platforms, available_tools=tools,
                state=state, golden=golden, reward_basis=["ENVIRONMENT"], tags=["apigen", record.style or ""])


def apigen_solve_rate(records: list[XRecord], catalog: Catalog, backend_spec: str, policy) -> tuple[float, int]:
    """(share solved, samples played) of the samples that become tasks."""
    backend = open_backend(backend_spec)
    today = backend.today().isoformat()
    solved = played = 0
    for record in records:
        task = apigen_task(record, catalog, today)
        if task is None:
            continue
        target = compute_target(task, backend)
        env = Environment(task, backend, budget=target.max_allowed_calls)
        output = policy.run(task, env, target, 0)
        predicted = [PredictedCall(tool=c.tool, arguments=c.arguments, turn=c.turn, ok=c.result.ok,
                                   raw_arguments=c.raw_arguments, malformed=c.malformed, error=c.result.error,
                                   records=len(c.result.records), total_count=c.result.total_count)
                     for c in env.calls]
        score = score_episode(task, target, output.answer, predicted, orjson.loads(env.state.canonical()),
                              env.state.hash())
        played += 1
        solved += score.passed and score.correctness == 1.0
    return solved / (played or 1), played


def edge_solve_rate(edge_run: Path, ids: list[str], out: Path, model: str, base_url: str | None, cache: str,
                    mode: str) -> tuple[float, float, int]:
    """(share passed by the task's own basis — RESPONSE —, share whose every reference call was matched — the
    criterion an APIGen sample is scored by, so the two datasets compare on it —, tasks played)."""
    config = RunConfig(policy="openai", backend="sim", rollouts=1, seeds=[0], task_set=str(edge_run), only=ids,
                       model=model, base_url=base_url, llm_cache=cache, llm_mode=mode)
    scored = run_bench(config, out, workers=1, force=True)
    played = len(scored) or 1
    return (sum(s.score.passed for s in scored) / played, sum(s.score.correctness == 1.0 for s in scored) / played,
            len(scored))
