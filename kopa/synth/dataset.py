"""`kopa edge synth` / `kopa edge filter`: the Phase B run folder.

DIR/config.json          the G* run, its graph digest, seed, backend, φ, writer, held-out platforms
DIR/parts/NNNNN.jsonl    synthesized chunks of CHUNK trajectory indices (a candidate or a failure each):
                         an interrupted run resumes from the last finished chunk
DIR/candidates.jsonl     the first N candidates in index order; failures.jsonl the slots that failed before
DIR/dataset.jsonl        after `filter`: one verified task per line (task, target, structure, provenance);
                         dataset.parquet the same rows (task, target, junctions as JSON text)
DIR/tasks/*.yaml         the same tasks as a KOPA-Bench task set, targets/*.json their targets, so
                         `kopa bench run --tasks DIR` evaluates any policy on them
DIR/dropped.jsonl        every dropped candidate with its stage and reason code
DIR/ablations/           sequential.jsonl, parallel_mixed.jsonl, unfiltered.jsonl: the paper's §6.3 (2), (3)
DIR/report.md            statistics beside the paper's, drops per stage and reason

Every trajectory draws from its own stream (seed, index), and the dataset is the first N successes by
index, so the bytes depend neither on the number of workers nor on where a run was interrupted.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import orjson

from kopa.backends.base import suggest
from kopa.backends.parsed import parse_backend
from kopa.backends.spec import open_backend
from kopa.backends.world import WorldStamp, world_stamp
from kopa.bank.model import load_bank
from kopa.catalog.loader import Catalog, load_catalog
from kopa.edge.graph import ToolGraph
from kopa.errors import UserError
from kopa.eval.contamination import audit, audit_table
from kopa.eval.targets import write_tasks
from kopa.eval.task import GoldenCall, load_tasks
from kopa.executor import Executor, LocalExecutor, can_fork
from kopa.fileio import RunFolder, read_json, read_lines, sql_literal, write_atomic, writes_run
from kopa.plots import pyplot
from kopa.synth.audit import mix, query_audit
from kopa.synth.audit import render as render_audit
from kopa.synth.candidate import Candidate, Failure
from kopa.synth.filters import Drop, Repeats, filter_candidates
from kopa.synth.intents.draw import TRIES as INTENT_TRIES
from kopa.synth.intents.draw import synthesize_intent
from kopa.synth.intents.realize import BankContext, platforms, retained_edges, ungrounded
from kopa.synth.junction import PHI
from kopa.synth.query import QueryWriter
from kopa.synth.synthesize import SHAPE_TRIES, synthesize
from kopa.synth.trajectory import MAX_PAGES, SynthContext

if TYPE_CHECKING:
    from kopa.synth.judges import ModelJudge
    from kopa.synth.solver import ModelSolver

SYNTH_VERSION = 26  # bump when a change makes the same seed build other trajectories: old parts are not reused
CHUNK = 25
MAX_ATTEMPTS_PER_TASK = 20  # slots allowed per wanted task before synthesis gives up
# Answers a process keeps of the simulator's (as objects, kopa.backends.memo.keepable): synthesis asks the same
# start pages again for slot after slot, and four of five calls repeat one it made before. A 400-slot run took
# 147 s with 256 MB of JSON, 123 s with 640 MB of objects (+300 MB RSS), 96 s with 1 GB (+600 MB); at 768 MB the
# paper-configuration run on the full world took 858 s with 5,644 MB at its peak (goal: 900 s, 6 GB).
MEMO_BYTES = 768 * 2**20
_JSON = orjson.OPT_SORT_KEYS  # configs and summaries; records keep the order execution gave them (below)


class SynthError(UserError, ValueError):
    """A Phase B run folder or G* run that cannot be used."""


def load_graph_run(graph_run: Path) -> tuple[ToolGraph, dict[str, list[str]], str]:
    """G*, the value cache C and G*'s digest, from what a finished Phase A run publishes (graph.json and
    values.json; never its resume state)."""
    graph_path, values = graph_run / "graph.json", graph_run / "values.json"
    if not graph_path.exists() or not values.exists():
        raise SynthError(f"{graph_run}: not a finished EDGE run (needs graph.json and values.json; run "
                         "`kopa edge graph build` with the run's options: a finished run resumes and writes them)")
    data = graph_path.read_bytes()
    try:
        graph = ToolGraph.from_json_bytes(data)
        cache = orjson.loads(values.read_bytes())["values"]
    except (ValueError, KeyError, TypeError) as exc:  # orjson's JSONDecodeError is a ValueError
        raise SynthError(f"{graph_run}: cannot read G* ({exc})") from exc
    return graph, cache, hashlib.sha256(data).hexdigest()


def _run_config(out: Path) -> dict:
    """A synthesis run's config.json, with the G* run and the backend it names."""
    config = read_json(out / "config.json", what="a synthesis run's config", error=SynthError)
    missing = [key for key in ("graph_run", "backend") if not isinstance(config.get(key), str)]
    if missing:
        raise SynthError(f"{out / 'config.json'}: not a synthesis run's config (no {' or '.join(missing)})")
    return config


def _config(out: Path, payload: dict, force: bool) -> None:
    RunFolder(out, what="a synthesis run", error=SynthError).claim(
        payload, body=orjson.dumps(payload, option=_JSON | orjson.OPT_INDENT_2), force=force, stale=("parts/*.jsonl",))


def _line(item: Candidate | Failure) -> bytes:
    kind = "candidate" if isinstance(item, Candidate) else "failure"
    # Not key-sorted: arguments keep the order golden execution built them in, so the targets written from
    # these lines are the bytes `kopa bench targets` writes (execution is deterministic, so is the order).
    return orjson.dumps({kind: item.model_dump(mode="json")}) + b"\n"


def _read_part(path: Path) -> list[Candidate | Failure]:
    return read_lines(path, _parse_row, what="a synthesis line ({\"candidate\": …} or {\"failure\": …})",
                      error=SynthError)


def _parse_row(raw: bytes) -> Candidate | Failure:
    row = orjson.loads(raw)
    return (Candidate.model_validate(row["candidate"]) if "candidate" in row
            else Failure.model_validate(row["failure"]))


def _parse_part(data: bytes) -> list[Candidate | Failure]:
    return [_parse_row(raw) for raw in data.splitlines()]


@dataclass(frozen=True)
class ChunkJob:
    """One chunk of trajectory indices, as a worker process receives it (everything picklable)."""

    graph_run: str
    graph_sha256: str  # part of the context's key: a rebuilt G* at the same path is a new context
    backend: str
    seed: int
    hold_out: tuple[str, ...]
    max_pages: int
    chunk: int
    part: str  # the part file the worker writes
    walk: bool = False  # walks on G* put into words by a model (--writer chat), not the intent bank


_CONTEXTS: dict[tuple, SynthContext | BankContext] = {}  # per process: a worker builds its context once


def _context(graph_run: str, digest: str, backend: str, seed: int, hold_out: tuple[str, ...],
             max_pages: int = MAX_PAGES, walk: bool = False) -> SynthContext | BankContext:
    """The run's context, built once per process: the intent bank's (`BankContext`), or the walk's
    (`SynthContext`: G*'s reach and starts, the value cache C)."""
    key = (graph_run, digest, backend, seed, hold_out, max_pages, walk)
    if key not in _CONTEXTS:
        graph, cache, _ = load_graph_run(Path(graph_run))
        backend_ = open_backend(backend).memoized(MEMO_BYTES)
        _CONTEXTS[key] = (SynthContext(graph, load_catalog(), backend_, cache, seed=seed, hold_out=frozenset(hold_out),
                                       max_pages=max_pages) if walk else
                          BankContext(graph, load_catalog(), backend_, seed=seed, hold_out=frozenset(hold_out),
                                      max_pages=max_pages))
    return _CONTEXTS[key]


def _run_chunk(job: ChunkJob, writer: QueryWriter | None = None) -> bytes:
    """Build the chunk's trajectories and write its part file (atomically); the file's bytes."""
    part = Path(job.part)
    if part.exists():
        return part.read_bytes()
    ctx = _context(job.graph_run, job.graph_sha256, job.backend, job.seed, job.hold_out, job.max_pages, job.walk)
    indices = range(job.chunk * CHUNK, (job.chunk + 1) * CHUNK)
    if isinstance(ctx, BankContext):
        data = b"".join(_line(synthesize_intent(ctx, i)) for i in indices)
    else:
        data = b"".join(_line(synthesize(ctx, i, writer)) for i in indices)
    write_atomic(part, data)
    return data


@writes_run("out", what="a synthesis run", error=SynthError, writer="another `kopa edge synth` or `edge filter`")
def synth_run(graph_run: Path, out: Path, n: int, *, seed: int = 0, workers: int = 1, backend_spec: str = "sim",
              hold_out: frozenset[str] = frozenset(), writer: QueryWriter | None = None, force: bool = False,
              max_pages: int = MAX_PAGES,
              progress: Callable[[int, int], None] | None = None, stop_after_chunks: int | None = None,
              executor: Executor | None = None) -> tuple[list[Candidate], list[Failure]]:
    """Synthesize until n candidates exist (or n × MAX_ATTEMPTS_PER_TASK attempts were made): from the intent
    bank, or — with a model `writer` — walks on G* the model puts into words. Chunks run in `workers`
    processes (kopa.executor), or on `executor` (a Ray cluster) when one is given; a model writer runs in
    this process only."""

    platforms = tuple(sorted(set(load_catalog().platforms) - {"session"}))
    unknown = sorted(hold_out - set(platforms))
    if unknown:  # a misspelt platform held out nothing, and the run looked like a held-out split
        raise SynthError(f"--hold-out-platforms: unknown platform {', '.join(map(repr, unknown))}"
                         f"{suggest(unknown[0], platforms)}; platforms: {', '.join(platforms)}")
    remote = executor is not None and not executor.in_process
    if (workers > 1 or remote) and writer is not None:
        raise SynthError("--workers > 1 and --executor ray need the intent bank (a model writer runs in one process)")
    if (workers > 1 or remote) and recorded_backends(backend_spec)[1] is not None:
        raise SynthError("--workers > 1 and --executor ray cannot record: one recording is written by one process "
                         "(use --workers 1)")
    backend_spec = str(parse_backend(backend_spec).with_absolute_recording())
    digest = load_graph_run(graph_run)[2]
    # the G* folder as an absolute path, like a recording's: `kopa edge filter` reads it from any folder
    _config(out, {"version": SYNTH_VERSION, "graph_run": str(graph_run.resolve()), "graph_sha256": digest, "seed": seed,
                  "backend": backend_spec,
                  "phi": PHI, "writer": writer.name if writer is not None else "intents", "hold_out": sorted(hold_out), "chunk": CHUNK,
                  "max_pages": max_pages}, force)
    parts = out / "parts"
    parts.mkdir(exist_ok=True)
    # absolute paths: a Ray worker runs in a folder of its own
    key = (str(graph_run.resolve()), digest, backend_spec, seed, tuple(sorted(hold_out)), max_pages)
    walk = writer is not None
    ctx = _context(*key, walk=walk)
    if isinstance(ctx, SynthContext) and not ctx.starts:
        raise SynthError(f"{graph_run}: G* has no retained edge between usable tools")
    if isinstance(ctx, BankContext) and not ctx.usable:
        raise SynthError("the intent bank has no intent outside the held-out platforms")
    if isinstance(ctx, BankContext) and not ctx.drawable:
        raise SynthError(f"{graph_run}: G* retains no edge for a handoff of any intent of the bank "
                         f"(e.g. {next(iter(ctx.ungrounded.values()))})")
    results: dict[int, list[Candidate | Failure]] = {}
    max_chunks = -(-n * MAX_ATTEMPTS_PER_TASK // CHUNK)

    def found() -> int:
        return sum(isinstance(x, Candidate) for items in results.values() for x in items)

    def job(chunk: int) -> ChunkJob:
        return ChunkJob(*key, chunk=chunk, part=str((parts / f"{chunk:05d}.jsonl").resolve()), walk=walk)

    last = max_chunks if stop_after_chunks is None else min(max_chunks, stop_after_chunks)
    if remote:
        assert executor is not None
        chunk = _chunks_on(executor, job, results, n, last, found, progress)
    else:
        chunk = _chunks_here(writer, workers, job, results, n, last, found, progress)
    if stop_after_chunks is not None and chunk >= stop_after_chunks and found() < n:
        return [], []
    ordered = [x for c in sorted(results) for x in results[c]]
    candidates: list[Candidate] = []
    failures: list[Failure] = []
    for item in ordered:
        if len(candidates) >= n:
            break
        if isinstance(item, Candidate):
            candidates.append(item)
        else:
            failures.append(item)
    write_atomic(out / "candidates.jsonl", b"".join(_line(c) for c in candidates))
    write_atomic(out / "failures.jsonl", b"".join(_line(f) for f in failures))
    return candidates, failures


def _chunks_on(executor: Executor, job: Callable[[int], ChunkJob], results: dict[int, list[Candidate | Failure]],
               n: int, last: int, found: Callable[[], int], progress: Callable[[int, int], None] | None) -> int:
    """Chunks in rounds on a cluster, as many per round as the candidates still missing need at the rate so
    far (two per worker at most). Which chunks exist does not change the bytes: the first n candidates in
    chunk order are kept. A part a worker wrote on another machine is written here too (a resume reads
    it). Returns the next chunk not handed out."""
    chunk = 0
    while chunk < last and found() < n:
        done = sum(CHUNK for _ in results)
        rate = found() / done if done else 1.0
        wanted = math.ceil((n - found()) / max(rate * CHUNK, 1e-9))
        batch = list(range(chunk, min(last, chunk + max(1, min(wanted, 2 * executor.workers)))))
        for c, data in zip(batch, executor.map(_run_chunk, [job(c) for c in batch]), strict=True):
            part = Path(job(c).part)
            if not part.exists():
                write_atomic(part, data)
            results[c] = _parse_part(data)
        chunk = batch[-1] + 1
        if progress is not None:
            progress(min(found(), n), n)
    return chunk


def _chunks_here(writer: QueryWriter | None, workers: int, job: Callable[[int], ChunkJob],
                 results: dict[int, list[Candidate | Failure]], n: int, last: int, found: Callable[[], int],
                 progress: Callable[[int, int], None] | None) -> int:
    """Chunks in this process or in `workers` processes forked from it. Returns the next chunk not handed
    out."""
    # forked after this process built the run's context above (G*, the catalog, the memoized backend): the
    # workers find it in _CONTEXTS instead of each loading their own
    executor = LocalExecutor(workers, fork=workers > 1 and can_fork())
    pending: dict[int, Future[bytes]] = {}
    chunk = 0
    try:
        while True:
            # Chunks are handed out as workers free up (two in flight per worker; one at a time in this
            # process when there are no workers), while the candidates found plus those the chunks in
            # flight should give at the rate so far fall short of n: no worker waits for a batch's slowest
            # chunk. Which chunks exist does not change the bytes: the first n candidates in chunk order
            # are kept.
            done = sum(CHUNK for c in results)
            rate = found() / done if done else 1.0
            while (chunk < last and len(pending) < (2 * workers if workers > 1 else 1)
                   and found() + rate * CHUNK * len(pending) < n):
                # in this process the writer goes along (a model writer cannot be pickled to a worker)
                pending[chunk] = executor.submit(_run_chunk if workers > 1 else partial(_run_chunk, writer=writer),
                                                 job(chunk))
                chunk += 1
            if not pending:
                break
            finished, _ = wait(pending.values(), return_when=FIRST_COMPLETED)
            for c in [c for c, future in pending.items() if future in finished]:
                results[c] = _parse_part(pending.pop(c).result())
            if progress is not None:
                progress(min(found(), n), n)
    finally:
        for future in pending.values():
            future.cancel()
        executor.close()
    return chunk


def read_candidates(out: Path) -> list[Candidate]:
    path = out / "candidates.jsonl"
    if not path.exists():
        raise SynthError(f"{out}: no candidates.jsonl (run `kopa edge synth` first)")
    return [c for c in _read_part(path) if isinstance(c, Candidate)]


def read_kept(out: Path) -> list[Candidate]:
    """The candidates `kopa edge filter` kept, in dataset order."""
    path = out / "dataset.jsonl"
    if not path.exists():
        raise SynthError(f"{out}: no dataset.jsonl (run `kopa edge synth` and `kopa edge filter` first)")
    ids = read_lines(path, lambda line: orjson.loads(line)["id"], what="a dataset line",
                     error=SynthError)
    by_id = {c.task.id: c for c in read_candidates(out)}
    return [by_id[i] for i in ids if i in by_id]


def recorded_backends(spec: str) -> tuple[str, str | None]:
    """(the backend a fresh re-solve runs on, the recording's replay, if the synthesis was recorded): a
    synthesis on `…@record:DIR@INNER` re-solves on `…@INNER` and on `…@replay:DIR`."""
    fresh, replay = parse_backend(spec).recorded_backends()
    return (spec, None) if replay is None else (str(fresh), str(replay))


FILTER_CHUNK = 20  # candidates a filter worker takes at a time


@dataclass(frozen=True)
class FilterJob:
    """Candidates of a run (positions in candidates.jsonl), as a filter worker receives them (picklable)."""

    out: str
    positions: tuple[int, ...]


_RUN_INPUTS: dict[str, tuple[list[Candidate], dict[str, list[str]], dict]] = {}  # per process: read once


def _filter_inputs(out: Path) -> tuple[list[Candidate], dict[str, list[str]], dict]:
    """The run's candidates, the cache C and the config, read once per process."""
    stat = (out / "candidates.jsonl").stat()
    key = f"{out}:{stat.st_mtime_ns}:{stat.st_size}"  # a re-synthesized run is read anew
    if key not in _RUN_INPUTS:
        config = _run_config(out)
        _RUN_INPUTS[key] = (read_candidates(out), load_graph_run(Path(config["graph_run"]))[1], config)
    return _RUN_INPUTS[key]


def _stages(candidates: list[Candidate], cache: dict[str, list[str]], config: dict, dedupe: bool = True,
            progress: Callable[[str, int, int], None] | None = None, judges: tuple[ModelJudge, ModelJudge] | None = None,
            solver: ModelSolver | None = None) -> tuple[list[Candidate], list[Drop], dict[str, int]]:
    """The three stages on `candidates`. Stages 1 and 2 read the recording where there is one (offline, as
    synthesized); Stage 3 re-solves on a fresh backend and, to judge a re-solve that differs, on the
    recording (else on another fresh one)."""
    fresh, recording = recorded_backends(config["backend"])
    # Stages 1 and 2 execute each chain's prefixes again and again: memoized (Stage 3's re-solves under other
    # record orders make the same requests, and read it too). Stage 3 re-solves each task on a fresh backend.
    return filter_candidates(candidates, load_catalog(), open_backend(recording or fresh).memoized(MEMO_BYTES),
                             lambda: open_backend(fresh), cache, config["seed"], progress, judges,
                             second_backend=lambda: open_backend(recording or fresh), solver=solver, dedupe=dedupe)


def _filter_chunk(job: FilterJob) -> bytes:
    """The three stages on one chunk, redundancy left to the caller: kept candidates, drops and notes."""
    candidates, cache, config = _filter_inputs(Path(job.out))
    kept, drops, notes = _stages([candidates[i] for i in job.positions], cache, config, dedupe=False)
    return orjson.dumps({"kept": [c.model_dump(mode="json") for c in kept],
                         "drops": [d.model_dump() for d in drops], "notes": notes})


@writes_run("out", what="a synthesis run", error=SynthError, writer="another `kopa edge synth` or `edge filter`")
def filter_run(out: Path, progress: Callable[[str, int, int], None] | None = None,
               judges: tuple[ModelJudge, ModelJudge] | None = None, solver: ModelSolver | None = None,
               workers: int = 1) -> tuple[list[Candidate], list[Drop], dict[str, int]]:
    """The three stages on every candidate of the run, then redundancy over what they kept. With
    `workers` > 1 chunks of candidates are filtered in worker processes; the bytes written do not depend
    on it (model judges and solvers run in this process only)."""

    if workers > 1 and (judges is not None or solver is not None):
        raise SynthError("--workers > 1 runs without model judges and solvers (they run in one process)")
    config = _run_config(out)
    candidates = read_candidates(out)
    fresh, _ = recorded_backends(config["backend"])
    if workers == 1:
        cache = load_graph_run(Path(config["graph_run"]))[1]
        kept, drops, notes = _stages(candidates, cache, config, True, progress, judges, solver)
    else:
        # redundancy decided in rounds (`Repeats`): each round filters the next candidate of every group of
        # would-be repeats, in chunks the workers pull as they free up, so a repeat of a kept candidate is
        # never filtered
        repeats = Repeats(candidates)
        kept, drops, notes = [], [], Counter[str]()
        with LocalExecutor(workers) as pool:
            while batch := repeats.next_batch():
                jobs = [FilterJob(str(out), tuple(batch[i:i + FILTER_CHUNK]))
                        for i in range(0, len(batch), FILTER_CHUNK)]
                passed = []
                for data in pool.imap(_filter_chunk, jobs):
                    part = orjson.loads(data)
                    passed += [Candidate.model_validate(c) for c in part["kept"]]
                    drops += [Drop.model_validate(d) for d in part["drops"]]
                    notes.update(part["notes"])
                    if progress is not None:
                        progress("stages 1-3", len(kept) + len(passed) + len(drops) + len(repeats.drops),
                                 len(candidates))
                kept += repeats.settle(batch, passed)
        kept.sort(key=lambda c: c.index)
        drops = sorted(drops + repeats.drops, key=lambda d: d.index)
        notes = dict(notes)
    # The world the targets hold answers of (the re-solves' world; a recording's replay has none): world.json
    world = world_stamp(open_backend(fresh))
    write_dataset(out, kept, config, world)
    write_ablations(out, candidates, kept, config, world)
    write_atomic(out / "dropped.jsonl", b"".join(orjson.dumps(d.model_dump(), option=_JSON) + b"\n" for d in drops))
    failures = [f for f in _read_part(out / "failures.jsonl") if isinstance(f, Failure)] \
        if (out / "failures.jsonl").exists() else []
    audit = contamination(kept)
    catalog = load_catalog()
    queries, balance = query_audit(kept, catalog), mix(kept, catalog)
    report = render_report(out.name, candidates, kept, drops, notes, failures, config, audit,
                           ungrounded_of(config) if config["writer"] == "intents" else None)
    (out / "report.md").write_text(report + "\n".join(["", *render_audit(queries, balance)]), encoding="utf-8")
    write_atomic(out / "stats.json", orjson.dumps({"statistics": statistics_of(kept), "contamination": audit,
                                                   "queries": queries, "balance": balance,
                                                   "drops": dict(Counter(f"{d.stage}:{d.reason}" for d in drops)),
                                                   "notes": notes}, option=_JSON | orjson.OPT_INDENT_2))
    write_plots(out / "plots", kept)
    return kept, drops, notes


def contamination(kept: list[Candidate]) -> dict:
    """The held-out audit against KOPA-Bench (kopa.eval.contamination; paper: 0/145 verbatim queries, 62.2%
    tool-universe overlap)."""
    return audit([c.task for c in kept], load_tasks(), load_catalog())


def _steps(c: Candidate):
    return [x for s in c.task.golden for x in ([s] if s.parallel is None else s.parallel)]


def write_plots(directory: Path, kept: list[Candidate]) -> None:
    """plots/type_mix.png (this run beside the paper) and plots/cardinality.png (junction cardinalities)."""
    plt = pyplot()

    directory.mkdir(parents=True, exist_ok=True)
    s = statistics_of(kept)
    total = s["tasks"] or 1
    kinds = list(PAPER_MIX)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    xs = range(len(kinds))
    ax.bar([x - 0.2 for x in xs], [100 * s["mix"][k] / total for k in kinds], width=0.4, label="this run")
    ax.bar([x + 0.2 for x in xs], [PAPER_MIX[k] for k in kinds], width=0.4, label="paper")
    ax.set_xticks(list(xs), kinds)
    ax.set_ylabel("% of tasks")
    ax.set_title("Phase B type mix")
    ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "type_mix.png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    cards = [j.cardinality for c in kept for j in c.junctions]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    if cards:
        top = max(cards)
        bins = sorted({1, 2, PHI + 1, *[int(10 ** (k / 4)) for k in range(0, int(4 * math.log10(top)) + 2)]})
        ax.hist(cards, bins=[*bins, bins[-1] + 1])
        ax.set_xscale("log")
    ax.axvline(PHI + 0.5, color="#C44E52", linestyle="--", label=f"φ = {PHI}")
    ax.set_xlabel("cardinality n of the connecting field")
    ax.set_ylabel("junctions")
    ax.set_title("Junction cardinality")
    ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "cardinality.png", dpi=110, metadata={"Software": None})
    plt.close(fig)


def write_dataset(out: Path, kept: list[Candidate], config: dict, world: WorldStamp | None = None) -> None:
    provenance = {k: config[k] for k in ("graph_run", "graph_sha256", "seed", "backend", "writer")}
    write_atomic(out / "dataset.jsonl", _rows(kept, config))
    write_parquet(out / "dataset.parquet", kept, provenance)
    write_task_set(out, kept, world)


def write_task_set(out: Path, items: list[Candidate], world: WorldStamp | None) -> None:
    """`items` as a task set in `out` (tasks/*.yaml, targets/*.json, world.json): what `kopa bench run --tasks`,
    `kopa rl export --tasks` and the RL tools read."""
    write_tasks(out, [(c.task, c.target) for c in items], world, "EDGE Phase B synthesized tasks")


SEQUENTIAL = frozenset({"SEQ", "FAN", "DRV"})


def _rows(items: list[Candidate], config: dict) -> bytes:
    provenance = {k: config[k] for k in ("graph_run", "graph_sha256", "seed", "backend", "writer")}
    return b"".join(orjson.dumps({"id": c.task.id, "query": c.task.query, "answer": c.target.answer,
                                  "pattern": c.pattern, "category": c.category, "calls": c.target.optimal_calls,
                                  "task": c.task.model_dump(mode="json"), "target": c.target.model_dump(mode="json"),
                                  "junctions": [j.model_dump(mode="json") for j in c.junctions],
                                  "block": c.block.model_dump(mode="json") if c.block is not None else None,
                                  "provenance": provenance}) + b"\n" for c in items)


def write_ablations(out: Path, candidates: list[Candidate], kept: list[Candidate], config: dict,
                    world: WorldStamp | None = None) -> None:
    """The training sets of the paper's ablations (§6.3): (2) pure-sequential (SEQ / FAN / DRV) and
    parallel + MIXED (SEM / CMP / COND / MIXED) beside the full set; (3) the set before filtering. Each is
    rows (NAME.jsonl) and a task set (NAME/), so `TASKS=DIR/ablations/NAME bash benchmark/rl/grpo_kopa.sh`
    trains on it as on the full set."""
    folder = out / "ablations"
    folder.mkdir(exist_ok=True)
    variants = {"sequential": [c for c in kept if c.category in SEQUENTIAL],
                "parallel_mixed": [c for c in kept if c.category not in SEQUENTIAL],
                "unfiltered": candidates}
    for name, items in variants.items():
        write_atomic(folder / f"{name}.jsonl", _rows(items, config))
        write_task_set(folder / name, items, world)


def write_parquet(path: Path, kept: list[Candidate], provenance: dict) -> None:
    """The dataset as Parquet through DuckDB (already a dependency): scalar columns for filtering, the
    task, target and junctions as JSON text, since their shapes vary from task to task."""
    columns = ["id", "query", "answer", "pattern", "category", "domain", "calls", "task", "target", "junctions",
               "provenance"]
    rows = [(c.task.id, c.task.query, c.target.answer, c.pattern, c.category, c.task.domain, c.target.optimal_calls,
             orjson.dumps(c.task.model_dump(mode="json"), option=_JSON).decode(),
             orjson.dumps(c.target.model_dump(mode="json"), option=_JSON).decode(),
             orjson.dumps([j.model_dump(mode="json") for j in c.junctions], option=_JSON).decode(),
             orjson.dumps(provenance, option=_JSON).decode()) for c in kept]
    partial = path.with_name(path.name + ".partial")
    con = duckdb.connect()
    try:
        con.execute("CREATE TABLE dataset (id VARCHAR, query VARCHAR, answer VARCHAR, pattern VARCHAR, "
                    "category VARCHAR, domain VARCHAR, calls INTEGER, task VARCHAR, target VARCHAR, "
                    "junctions VARCHAR, provenance VARCHAR)")
        if rows:
            con.executemany(f"INSERT INTO dataset VALUES ({', '.join('?' for _ in columns)})", rows)
        con.execute(f"COPY dataset TO {sql_literal(str(partial))} (FORMAT PARQUET)")
    finally:
        con.close()
    partial.replace(path)  # an interrupted write never leaves half a file


# ------------------------------------------------------------------------------------------ statistics

PAPER_MIX = {"MIXED": 36.7, "DRV": 19.7, "SEM": 17.0, "SEQ": 12.1, "CMP": 9.0, "COND": 2.8, "FAN": 2.7}
PAPER_ROWS = [("ToolBench-v1", "1.9%", "1", "127"), ("APIGen-MT", "10.0%", "1", "16"),
              ("Nemotron", "1.6%", "1", "15"), ("ToolACE", "4.5%", "1", "10")]


def _parallel(c: Candidate) -> bool:
    turns = [call.turn for call in c.target.calls]
    return any(turns.count(t) > 1 for t in set(turns))


@dataclass(frozen=True)
class TaskShape:
    """What the dataset statistics read of one task, whichever pipeline made it (`kopa compare synth` puts
    APIGen's samples through the same statistics)."""

    calls: int  # tool calls the answer needs, each counted once however many pages it read
    parallel: bool  # two or more calls in one turn
    cardinalities: tuple[int, ...] = ()  # per junction: distinct values of the field handed on
    records: tuple[int, ...] = ()  # per junction: records the call feeding it returned (the paper's cardinality)
    searched: int = 0  # junctions fed by a call the tool itself filtered (counted before its filter)
    pages: int = 1  # the most pages one call of the task read
    page_reads: int = 0  # pages read beyond each call's first
    turns: int = 1  # sequential steps (hops)
    domain: str | None = None
    tools: tuple[str, ...] = ()  # data tools the answer calls


def call_pages(calls: list[GoldenCall], catalog: Catalog) -> list[int]:
    """The pages each tool call read: golden execution records every page as a call of its own, the same
    tool in the same turn with the same arguments but its paging window (PageNo, START_INDEX, …)."""
    pages: dict[tuple, int] = {}
    for call in calls:
        paging = {p.name for p in catalog[call.tool].spec.params if p.paging} if call.tool in catalog else set()
        key = (call.turn, call.tool, orjson.dumps({k: v for k, v in call.arguments.items() if k not in paging},
                                                  option=orjson.OPT_SORT_KEYS))
        pages[key] = pages.get(key, 0) + 1
    return list(pages.values())


def shape_of(c: Candidate, catalog: Catalog | None = None) -> TaskShape:
    steps = [s.call for s in _steps(c) if s.call]
    catalog = catalog or load_catalog()
    pages = call_pages(c.target.calls, catalog)
    calls = {s.id: s.call for s in _steps(c)}
    feeding = [j.source_tool for j in c.junctions] + ([calls.get(c.block.source or "")]
                                                      if c.block is not None and c.block.records is not None else [])
    return TaskShape(calls=len(pages), parallel=_parallel(c),
                     cardinalities=tuple(j.cardinality for j in c.junctions) + _block_values(c),
                     records=tuple(j.records for j in c.junctions) + _block_records(c),
                     searched=sum(_searches_client_side(catalog, tool) for tool in feeding),
                     pages=max(pages, default=1), page_reads=sum(pages) - len(pages),
                     turns=len({call.turn for call in c.target.calls}), domain=c.task.domain,
                     tools=tuple(dict.fromkeys(steps)))


def _searches_client_side(catalog: Catalog, tool: str | None) -> bool:
    return tool is not None and tool in catalog and any(p.location == "client" for p in catalog[tool].spec.params)


def _block_records(c: Candidate) -> tuple[int, ...]:
    """A block fed by a step: the records that step returned, a handoff as a junction's is (seed §5.5)."""
    return (c.block.records,) if c.block is not None and c.block.records is not None else ()


def _block_values(c: Candidate) -> tuple[int, ...]:
    """... and the distinct values it handed on: one entity (SEM, COND), two (CMP)."""
    if c.block is None or c.block.records is None:
        return ()
    return (len(set(c.block.values[:2])) if c.block.kind == "CMP" else 1,)


def shape_statistics(shapes: list[TaskShape]) -> dict:
    """The statistics every dataset has: calls, hops (≥ 4 calls), parallel share, one-to-many chaining and
    junction cardinalities — as the paper counts them, the records the call feeding a junction returned (a
    junction fed more than one record is one-to-many); the distinct values handed on are reported apart."""
    total = len(shapes) or 1
    calls = [s.calls for s in shapes]
    page_reads = [s.page_reads for s in shapes]
    cards = [k for s in shapes for k in s.cardinalities]
    records = [k for s in shapes for k in s.records]
    return {
        "tasks": len(shapes),
        "calls_mean": statistics.fmean(calls) if calls else 0.0, "calls_max": max(calls, default=0),
        "page_reads_mean": statistics.fmean(page_reads) if page_reads else 0.0,
        "page_reads_max": max(page_reads, default=0),
        "hops4": sum(x >= 4 for x in calls) / total,
        "parallel": sum(s.parallel for s in shapes) / total,
        "one_to_many": sum(any(k > 1 for k in s.records) for s in shapes) / total,
        "distinct_median": statistics.median(cards) if cards else 0, "distinct_max": max(cards, default=0),
        "card_median": statistics.median(records) if records else 0, "card_max": max(records, default=0),
        "searched": sum(s.searched for s in shapes), "junctions": len(records),
        "paged": sum(s.pages >= 2 for s in shapes) / total,
    }


def statistics_of(kept: list[Candidate]) -> dict:
    mix = Counter(c.category for c in kept)
    single = [c for c in kept if len(c.junctions) == 1]
    catalog = load_catalog()
    shared = shape_statistics([shape_of(c, catalog) for c in kept])
    return {
        "tasks": shared["tasks"],
        "mix": {k: mix.get(k, 0) for k in PAPER_MIX},
        "fan_drv_single": sum(c.category in ("FAN", "DRV") for c in single), "single": len(single),
        **{k: v for k, v in shared.items() if k != "tasks"},
        "patterns": dict(Counter(c.pattern for c in kept).most_common()),
    }


def _tries(config: dict) -> str:
    if config.get("writer") == "intents":
        return f"each after {INTENT_TRIES} realizations of its drawn intent"
    return f"each after {SHAPE_TRIES} tries of its drawn shape"


def _intent_lines(candidates: list[Candidate], kept: list[Candidate], failures: list[Failure],
                  ungrounded: dict[str, str]) -> list[str]:
    """Which of the bank's intents the run asked, the ones G* cannot realize (not drawn), and the ones whose
    realizations failed most."""
    made = Counter(t.split(":", 1)[1] for c in candidates for t in c.task.tags if t.startswith("intent:"))
    if not made and not any(f.intent for f in failures):
        return []
    held = Counter(t.split(":", 1)[1] for c in kept for t in c.task.tags if t.startswith("intent:"))
    failed = Counter(f.intent for f in failures if f.intent)
    why: dict[str, Counter[str]] = {}
    for f in failures:
        if f.intent:
            why.setdefault(f.intent, Counter())[f.reason] += 1
    lines = ["## Intents", "", f"{len(made)} intents of the bank realized as candidates, {len(held)} of them kept; "
             f"most kept from one intent: {max(held.values(), default=0)}.", ""]
    if ungrounded:
        lines += [f"{len(ungrounded)} intents are not drawn: G* retains no edge for a handoff each needs (Phase A "
                  "pruned it or never proposed it).", "", "| intent | a handoff G* lacks |", "|---|---|"]
        lines += [f"| {intent} | {hop} |" for intent, hop in sorted(ungrounded.items())]
        lines.append("")
    if failed:
        lines += ["| intent | slots failed | why (most) | candidates |", "|---|---:|---|---:|"]
        lines += [f"| {intent} | {n} | {why[intent].most_common(1)[0][0]} | {made.get(intent, 0)} |"
                  for intent, n in failed.most_common(12)]
        lines.append("")
    return lines


def ungrounded_of(config: dict) -> dict[str, str]:
    """The run's intents (outside its held-out platforms) that G* cannot realize, with a handoff each lacks."""
    catalog = load_catalog()
    intents = tuple(i for i in load_bank() if not platforms(i, catalog) & set(config["hold_out"]))
    return ungrounded(intents, catalog, retained_edges(load_graph_run(Path(config["graph_run"]))[0]))


def render_report(name: str, candidates: list[Candidate], kept: list[Candidate], drops: list[Drop],
                  notes: dict[str, int], failures: list[Failure], config: dict, audit: dict | None = None,
                  ungrounded: dict[str, str] | None = None) -> str:
    s = statistics_of(kept)
    total = s["tasks"] or 1
    lines = [f"# EDGE Phase B — {name}", "",
             f"G* run `{config['graph_run']}` (sha256 {config['graph_sha256'][:12]}), backend `{config['backend']}`, "
             f"seed {config['seed']}, φ = {config['phi']}, writer `{config['writer']}`, held out: "
             f"{', '.join(config['hold_out']) or 'none'}.", "",
             f"{len(failures)} slots failed ({_tries(config)}) before {len(candidates)} candidates were executed "
             f"({', '.join(f'{k} {v}' for k, v in Counter(f.reason for f in failures).most_common()) or 'none'}); "
             f"**{s['tasks']} tasks** passed the three-stage filter (paper: 1,781).", "",
             *_intent_lines(candidates, kept, failures, ungrounded or {}),
             "## Type mix", "", "| type | tasks | share | paper |", "|---|---:|---:|---:|"]
    for k, paper in PAPER_MIX.items():
        lines.append(f"| {k} | {s['mix'][k]} | {100 * s['mix'][k] / total:.1f}% | {paper}% |")
    lines += ["", "SEQ / FAN / DRV: single-junction sequential; SEM / CMP / COND: a template on a start lookup; "
              "MIXED: every longer composition (two or more junctions, or junctions then a template).", "",
              "## Structure", "", "| statistic | here | paper |", "|---|---:|---:|",
              f"| FAN + DRV share of single-junction sequential | "
              f"{100 * s['fan_drv_single'] / (s['single'] or 1):.1f}% ({s['fan_drv_single']}/{s['single']}) | "
              "64.9% (398/613) |",
              f"| tool calls per task (mean / max), each call once | {s['calls_mean']:.2f} / {s['calls_max']} | "
              "4.13 / 36 |",
              f"| page reads beyond a call's first (mean / max) | {s['page_reads_mean']:.2f} / "
              f"{s['page_reads_max']} | — |",
              f"| tasks with ≥ 4 tool calls (hops) | {100 * s['hops4']:.1f}% | 57.6% |",
              f"| sequential : parallel (two or more calls in one turn) | {100 * (1 - s['parallel']):.1f} : "
              f"{100 * s['parallel']:.1f} | 63.8 : 36.2 |", "",
              "## One-to-many chaining", "",
              "| dataset | one-to-many chaining | median cardinality | max |", "|---|---:|---:|---:|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in PAPER_ROWS]
    lines += ["| KOPA (paper) | 81.2% | 27 | 224,958 |",
              f"| **this run** | {100 * s['one_to_many']:.1f}% | {s['card_median']:g} | {s['card_max']:,} |", "",
              f"Cardinality is counted as the paper counts it: the records the call feeding a junction returned "
              f"(every page read; a tool that searches the service's whole answer itself is counted before its "
              f"filter, as the service sent it: {s['searched']:,} of {s['junctions']:,} junctions, DART's "
              f"corp-code archive searched by name). The distinct values of the connecting field: median "
              f"{s['distinct_median']:g}, "
              f"max {s['distinct_max']:,}. Tasks whose calls really read two or more pages of one answer: "
              f"{100 * s['paged']:.1f}%.",
              "", "## Structure patterns", "", "| pattern | tasks |", "|---|---:|"]
    lines += [f"| {p} | {k} |" for p, k in s["patterns"].items()]
    lines += ["", "## Drops", "", "| stage | reason | dropped |", "|---:|---|---:|"]
    for (stage, reason), dropped in sorted(Counter((d.stage, d.reason) for d in drops).items()):
        lines.append(f"| {stage} | {reason} | {dropped} |")
    lines += ["", "Stage 2 offline: the leak and decorative-chain judges are exact checks (a string check plus lint's "
              "leak rule; perturbation of intermediate results, re-executed), so each drops alone — the paper's "
              "two-judge agreement is for model judges (`--role judge=A,B`). The static judge (steps nothing references) flagged "
              f"{notes.get('decorative_static', 0)} candidates, "
              f"{notes.get('decorative_static_not_execution', 0)} of them not confirmed by execution.", "",
              "Stage 3 re-solved every remaining task on a fresh environment; "
              f"{notes.get('answer_replaced', 0)} stored answers did not reproduce but two independent re-solves "
              "agreed, so the re-solved answer replaced the stored one (the paper's replacement).", ""]
    if "judge_abstentions" in notes:
        lines += ["Stage 2 model judges (two, dropping only when both say yes): "
                  f"{notes['judges_leak_dropped']} leaks and {notes['judges_decorative_dropped']} decorative chains "
                  "the exact checks let through; on what the exact checks dropped they agreed "
                  f"{notes['judges_leak_agree_with_exact']}/{notes['exact_leak']} (leaks) and "
                  f"{notes['judges_decorative_agree_with_exact']}/{notes['exact_decorative']} (decorative); "
                  f"{notes['judge_abstentions']} votes abstained (no readable verdict).", ""]
    if audit is not None:
        lines += ["## Contamination audit against KOPA-Bench", "", *audit_table(audit), "",
                  "Plots: plots/type_mix.png, plots/cardinality.png.", ""]
    return "\n".join(lines)
