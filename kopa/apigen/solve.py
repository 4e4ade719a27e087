"""Both datasets played and scored as KOPA-Bench episodes, by the same runner and scorer (`run_bench`).

EDGE Phase B's run folder is a task set already. An APIGen sample has no final answer, only the calls that
answer it, so it becomes a task (`apigen_task`) whose golden trajectory is those calls (one turn) and whose
outcome is the end state (ENVIRONMENT: the calls are reads, so the state is the issued keys), written as a task
set of its own (`write_apigen_tasks`).

Solved, on both sides, is "every reference call matched" (ACTION correctness 1, kopa's BFCL-style call
matcher): the one criterion an APIGen sample has. Each side's own verdict (pass@1 on its reward basis:
ENVIRONMENT for APIGen, RESPONSE for Phase B) is kept beside it. The oracle's episodes also give the figures
that are measured rather than stated: records returned per call and the pages read beyond the first.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from kopa.apigen.record import XRecord
from kopa.backends.spec import open_backend
from kopa.backends.world import world_stamp
from kopa.catalog.loader import Catalog
from kopa.eval.episode import ScoredEpisode, Transcript
from kopa.eval.golden import GoldenError
from kopa.eval.runner import RunConfig, run_bench, transcript_name
from kopa.eval.targets import compute_target, write_tasks
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
    # The sample carries no key step (the key travels outside an xlam row), so the keys are issued before
    # the episode starts: a policy is judged on the calls the sample asks for.
    state = InjectedState(predefined={"current_date": today},
                          setup=[SetupAction(tool="issue_api_key", args={"platform": p}) for p in keyed])
    return Task(id=record.id, query=record.query, domain=domain, platforms=platforms,
                available_tools=tools, state=state, golden=golden, reward_basis=["ENVIRONMENT"],
                tags=["apigen", record.style or ""])


def write_apigen_tasks(records: list[XRecord], catalog: Catalog, backend_spec: str, out: Path) -> list[str]:
    """The samples that become tasks, written as a task set in `out` with targets computed on `backend_spec`
    (the backend the APIGen run verified on); their task ids, in the samples' order."""
    backend = open_backend(backend_spec)
    today = backend.today().isoformat()
    pairs = []
    for record in records:
        task = apigen_task(record, catalog, today)
        if task is None:
            continue
        try:
            pairs.append((task, compute_target(task, backend)))
        except GoldenError:  # a verified sample whose calls no longer answer (another world): not a task here
            continue
    write_tasks(out, pairs, world_stamp(backend), "APIGen samples as KOPA-Bench tasks")
    return [task.id for task, _ in pairs]


def play(task_set: Path, ids: list[str], backend: str, out: Path, policy: str, *, model: str | None = None,
         base_url: str | None = None, llm_cache: str | None = None, llm_mode: str = "auto",
         workers: int = 2) -> list[ScoredEpisode]:
    """`ids` of `task_set` played once by `policy` (an offline baseline, or "openai" with `model`) into the run
    folder `out`, scored as `kopa bench score` scores them."""
    config = RunConfig(policy=policy, backend=backend, rollouts=1, seeds=[0], task_set=str(task_set), only=ids,
                       model=model, base_url=base_url, llm_cache=llm_cache, llm_mode=llm_mode)  # type: ignore[arg-type]
    return run_bench(config, out, workers=workers, force=True)


def solve_summary(scored: list[ScoredEpisode]) -> dict[str, Any]:
    """Per-episode flags of one policy on one dataset: every reference call matched, passed on the task's own
    basis, and the outcome-gated Action."""
    return {"matched": [s.score.correctness == 1.0 for s in scored], "passed": [s.score.passed for s in scored],
            "action": statistics.fmean(s.score.action for s in scored) if scored else 0.0, "played": len(scored)}


def executed_figures(run: Path, scored: list[ScoredEpisode]) -> dict[str, Any]:
    """What the calls of a run's episodes did, read from their transcripts: calls per task, records returned
    per answered call, and the share of tasks that read a page beyond the first or met an answer longer than
    the page that carried it."""
    calls: list[int] = []
    records: list[int] = []
    later_page: list[bool] = []
    more_pages: list[bool] = []
    for s in scored:
        path = run / "transcripts" / transcript_name(s.task_id, s.seed, s.rollout)
        results = Transcript.model_validate_json(path.read_bytes()).results if path.exists() else []
        answered = [r for r in results if r.get("ok")]
        calls.append(len(results))
        records += [len(r.get("records") or []) for r in answered]
        later_page.append(any(_later_page(r.get("page")) for r in answered))
        more_pages.append(any((r.get("total_count") or 0) > len(r.get("records") or []) for r in answered))
    return {"tasks": len(scored), "calls_mean": statistics.fmean(calls) if calls else 0.0,
            "records_per_call_mean": statistics.fmean(records) if records else 0.0,
            "records_per_call_median": statistics.median(records) if records else 0.0,
            "later_page": later_page, "more_pages": more_pages}


def _later_page(page: dict[str, Any] | None) -> bool:
    """A page after the first: page number 2 on, or (Seoul) a row window that does not start at row 1."""
    if not page:
        return False
    return (page.get("page") or 1) > 1 or (page.get("start") or 1) > 1

