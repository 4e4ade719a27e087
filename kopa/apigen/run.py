"""The run folders of `kopa apigen generate` and `kopa apigen verify`.

generate DIR:
  config.json        generator, checker, backend, seed, n, budget, tool pool filter (a rerun with another
                     configuration is refused, naming what differs; --force discards the parts)
  values.json        the validated value cache and what probing cost
  parts/NNNNN.jsonl  one line per sample of a chunk of CHUNK indices: prompt, raw output, verdict, outcomes.
                     Chunk c's prompts take their few-shot examples from the verified samples of chunks < c
                     (the feedback loop), so a resumed run rebuilds exactly what an uninterrupted one does
verify DIR:
  config.json        the input file's SHA-256, backend, checker
  parts/NNNNN.jsonl  the verdicts (and outcomes) of a chunk of CHUNK input records
both (written as the chunks are decided — each file as NAME.partial, made whole and renamed at the end — so a
run holds no sample beyond its chunk: only the report's counts and the feedback loop's examples):
  verdicts.jsonl     one line per sample / input record, in order: id, passed, stage, reason (+ counted,
                     detail, criteria)
  verified.jsonl     the passed records as rows of xlam-function-calling-60k (id, query, answers, tools; exactly
                     the published shape: kopa.apigen.record.xlam_row)
  verified.notes.jsonl  line by line beside it: the row's id, kopa's record id, style, provenance (the results
                     each call returned) and its verdicts per stage
  relevance.jsonl    relevance-detection samples made from the verified ones (xlam rows; relevance.notes.jsonl
                     beside them)
  report.md, stats.json, plots/stages.png
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from kopa.apigen.generator import Generator
from kopa.apigen.record import XRecord, catalog_tool, parse_xlam_row, xlam_row
from kopa.apigen.relevance import relevance_sample, wanted_samples
from kopa.apigen.report import Tally, render_report, write_plots
from kopa.apigen.sampler import APISampler, ExampleSampler, PromptSampler, draw_style
from kopa.apigen.semantic import RuleChecker, SemanticChecker, serving_tool
from kopa.apigen.values import ValueCache, build_cache
from kopa.apigen.verify import (
    CallOutcome,
    Verdict,
    execute,
    execution_verdict,
    format_check,
    issue_keys,
    read_record,
)
from kopa.backends.spec import open_backend
from kopa.catalog.loader import Catalog
from kopa.errors import UserError
from kopa.fileio import RunFolder, read_lines, write_atomic, writes_run
from kopa.rng import stream
from kopa.tools.runtime import ToolRuntime

APIGEN_VERSION = 5  # bump when the same seed would build other samples: old parts are not reused
CHUNK = 25
_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2


class ApigenError(UserError, ValueError):
    """A run folder or input file that cannot be used."""


class Item(BaseModel):
    """One sample (generate) or input record (verify) with everything verification found."""

    model_config = ConfigDict(extra="forbid")

    index: int
    verdict: Verdict
    record: XRecord | None = None  # None when the format check failed
    raw: str | None = None  # generate: what the generator wrote
    prompt: dict[str, Any] | None = None
    outcomes: list[CallOutcome] = []
    calls: int = 0  # tool calls spent on the sample (session tools excluded)


# ------------------------------------------------------------------------------------------ one sample

def verify_record(record: XRecord, runtime: ToolRuntime, catalog: Catalog, checker: SemanticChecker
                  ) -> tuple[Verdict, list[CallOutcome]]:
    """Stages 2 and 3 of a record that passed stage 1."""
    if not record.answers:  # a relevance record: nothing to execute; its label is checked against the tools
        serving = serving_tool(record, catalog) if record.provenance.get("relevance") != "refusal" else None
        if serving is not None:  # a refusal keeps the tool on purpose: the query lacks its value
            return Verdict(id=record.id, passed=False, stage="semantic", reason="tool_serves_query",
                           detail=f"labelled no call, yet {serving[0]} is offered and the query asks for it "
                                  f"({serving[1]:.2f})"), []
        return Verdict(id=record.id, passed=True, detail="no call to verify (relevance record)"), []
    outcomes = execute(record, runtime, catalog)
    failed = execution_verdict(record.id, outcomes)
    if failed is not None:
        return failed, outcomes
    retried = sum(o.attempts > 1 for o in outcomes)
    semantic = checker.check(record, outcomes)
    if not semantic.passed:
        return Verdict(id=record.id, passed=False, stage="semantic", reason=semantic.reason, detail=semantic.detail,
                       retried_calls=retried, criteria=semantic.criteria), outcomes
    return Verdict(id=record.id, passed=True, detail=semantic.detail, retried_calls=retried,
                   criteria=semantic.criteria), outcomes


def _spent(outcomes: list[CallOutcome], catalog: Catalog) -> int:
    return sum(1 for o in outcomes if o.name in catalog and catalog[o.name].family != "session")


def _runtime(spec: str, catalog: Catalog) -> ToolRuntime:
    runtime = ToolRuntime(open_backend(spec), catalog=catalog)
    issue_keys(runtime, catalog)
    return runtime


# ------------------------------------------------------------------------------------------ folders

def _config(out: Path, payload: dict, force: bool) -> None:
    RunFolder(out, what="an APIGen run", error=ApigenError).claim(
        payload, body=orjson.dumps(payload, option=_SORTED), force=force,
        stale=("parts/*.jsonl", "values.json", "*.partial"))


def _read_part(path: Path) -> list[Item] | None:
    """A finished chunk's items (resuming), or None when the chunk has not run."""
    if not path.exists():
        return None
    return [Item.model_validate(orjson.loads(x)) for x in path.read_bytes().splitlines()]


def _write_part(path: Path, items: list[Item]) -> None:
    write_atomic(path, b"".join(orjson.dumps(i.model_dump(mode="json")) + b"\n" for i in items))


def read_items(out: Path) -> list[Item]:
    items: list[Item] = []
    for part in sorted((out / "parts").glob("*.jsonl")):
        items += [Item.model_validate(orjson.loads(line)) for line in part.read_bytes().splitlines()]
    return items


def tool_pool(catalog: Catalog, domains: frozenset[str], platforms: frozenset[str], real_only: bool = False) -> list:
    """The tools APIGen may sample, by domain and platform (all non-session tools when neither is given);
    `real_only` keeps the tools that have a live endpoint (not the simulator-only long tail)."""
    return [t for t in catalog if t.family != "session" and (not domains or t.domain in domains)
            and (not platforms or t.platform in platforms) and (t.spec.real or not real_only)]


@writes_run("out", what="an APIGen run", error=ApigenError, writer="another `kopa apigen generate`")
def generate_run(out: Path, n: int, generator_factory: Callable[[ValueCache, str], Generator],
                 checker: SemanticChecker, catalog: Catalog, *, generator_name: str, backend_spec: str = "sim",
                 seed: int = 0, budget: int | None = None, domains: frozenset[str] = frozenset(),
                 platforms: frozenset[str] = frozenset(), real_only: bool = False, force: bool = False,
                 progress: Callable[[str, int, int], None] | None = None,
                 stop_after_chunks: int | None = None) -> Tally:
    """Generate and verify n samples (fewer when the budget of tool calls runs out), chunk by chunk; each chunk's
    samples go to the output files as they are decided (`Outputs`), and what the run keeps of them is the
    feedback loop's examples and the report's counts (the Tally it returns)."""
    _config(out, {"version": APIGEN_VERSION, "generator": generator_name, "checker": checker.name,
                  "backend": backend_spec, "seed": seed, "n": n, "budget": budget, "domains": sorted(domains),
                  "platforms": sorted(platforms), "real_only": real_only, "chunk": CHUNK}, force)
    runtime = _runtime(backend_spec, catalog)
    values_path = out / "values.json"
    if values_path.exists():
        cache = ValueCache.model_validate_json(values_path.read_bytes())
    else:
        pool = sorted(tool_pool(catalog, domains, platforms, real_only), key=lambda t: t.name)
        cache = build_cache(pool, runtime, seed, (lambda d, t: progress("probing values", d, t)) if progress else None)
        write_atomic(values_path, orjson.dumps(cache.model_dump(), option=_SORTED))
    if budget is not None and cache.calls >= budget:
        raise ApigenError(f"probing the value cache spent {cache.calls} tool calls, the whole budget of {budget}: "
                          "raise --budget or narrow the pool (--platforms, --domains, --real-only)")
    generator = generator_factory(cache, runtime.state.current_date)
    if isinstance(checker, RuleChecker) and not checker.values:  # the rules know the names the cache saw
        checker = RuleChecker(catalog, cache.seen(), cache.named)
    # the offline generator's book: only the tools it words are drawn, pairs asked about the same subject
    apis, prompts = APISampler(catalog, cache, getattr(generator, "book", None)), PromptSampler()
    if not apis.usable:
        raise ApigenError("no tool of the pool answered its probe (or, offline, none is one the generator words): "
                          "nothing to sample (check --domains/--platforms)")
    (out / "parts").mkdir(exist_ok=True)
    about = {"generator": generator_name, "checker": checker.name, "backend": backend_spec,
             "probe_calls": cache.calls, "budget": budget}
    outputs = Outputs(out, catalog, seed, about, most=n)
    examples = ExampleSampler([])
    for chunk in range(-(-n // CHUNK)):
        if stop_after_chunks is not None and chunk >= stop_after_chunks:
            break
        part = out / "parts" / f"{chunk:05d}.jsonl"
        done = _read_part(part)
        if done is None:
            done = []
            spent = cache.calls + outputs.tally.calls
            for index in range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)):
                if budget is not None and spent >= budget:
                    break
                item = _one_sample(index, seed, apis, examples, prompts, generator, checker, runtime, catalog)
                spent += item.calls
                done.append(item)
            _write_part(part, done)
        for i in outputs.add(done):  # the next chunk's prompts take examples from the verified samples of this one
            if i.verdict.passed and i.record is not None:
                examples.add(i.record)
        if progress is not None:
            progress("samples", outputs.tally.generated, n)
        if len(done) < min(CHUNK, n - chunk * CHUNK):
            break  # the budget ran out inside this chunk
    return outputs.finish()


def _one_sample(index: int, seed: int, apis: APISampler, examples: ExampleSampler, prompts: PromptSampler,
                generator: Generator, checker: SemanticChecker, runtime: ToolRuntime, catalog: Catalog) -> Item:
    rng = stream(seed, "apigen-sample", str(index))
    record_id = f"apigen-{seed}-{index:06d}"
    style = draw_style(rng)
    tools = None
    for _ in range(8):  # a style the drawn domain cannot serve (e.g. parallel with no varying parameter)
        tools = apis.sample(style, rng)
        if tools is not None:
            break
        style = draw_style(rng)
    if tools is None:
        tools = apis.sample("simple", rng)
        style = "simple"
    assert tools is not None
    shots = examples.sample(style, rng)
    prompt = prompts.sample(style, tools, shots, rng)
    made = generator.generate(prompt, tools, shots, rng)
    library = [catalog_tool(t) for t in tools]
    record, failed = format_check(made.raw, library, record_id=record_id, style=style)
    if record is None:
        assert failed is not None
        return Item(index=index, verdict=failed, raw=made.raw, prompt=prompt.model_dump())
    record = record.model_copy(update={"style": style, "provenance": {"template": prompt.template, **made.notes}})
    verdict, outcomes = verify_record(record, runtime, catalog, checker)
    return Item(index=index, verdict=verdict, record=record, raw=made.raw, prompt=prompt.model_dump(),
                outcomes=outcomes, calls=_spent(outcomes, catalog))


@writes_run("out", what="an APIGen run", error=ApigenError, writer="another `kopa apigen verify`")
def verify_run(source: Path, out: Path, checker: SemanticChecker, catalog: Catalog, *, backend_spec: str = "sim",
               force: bool = False, progress: Callable[[str, int, int], None] | None = None,
               stop_after_chunks: int | None = None) -> Tally:
    """Verify a JSONL file in the xlam format, chunk by chunk (resumable)."""
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise ApigenError(f"{source}: cannot read ({exc.strerror})") from None
    lines = [line for line in data.splitlines() if line.strip()]
    _config(out, {"version": APIGEN_VERSION, "source": str(source), "source_sha256": hashlib.sha256(data).hexdigest(),
                  "checker": checker.name, "backend": backend_spec, "chunk": CHUNK}, force)
    runtime = _runtime(backend_spec, catalog)
    (out / "parts").mkdir(exist_ok=True)
    outputs = Outputs(out, catalog, 0, {"generator": f"file:{source.name}", "checker": checker.name,
                                        "backend": backend_spec, "probe_calls": 0, "budget": None}, most=len(lines))
    for chunk in range(-(-len(lines) // CHUNK)):
        if stop_after_chunks is not None and chunk >= stop_after_chunks:
            break
        part = out / "parts" / f"{chunk:05d}.jsonl"
        done = _read_part(part)
        if done is None:
            done = [_one_record(index, lines[index], runtime, catalog, checker)
                    for index in range(chunk * CHUNK, min(len(lines), (chunk + 1) * CHUNK))]
            _write_part(part, done)
        outputs.add(done)
        if progress is not None:
            progress("records", outputs.tally.generated, len(lines))
    return outputs.finish()


def _one_record(index: int, line: bytes, runtime: ToolRuntime, catalog: Catalog, checker: SemanticChecker) -> Item:
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return Item(index=index, verdict=Verdict(id=str(index + 1), passed=False, stage="format",
                                                 reason="unparseable_json", detail=f"line {index + 1}: {exc}"))
    record, failed = read_record(raw, index + 1)
    if record is None:
        assert failed is not None
        return Item(index=index, verdict=failed)
    verdict, outcomes = verify_record(record, runtime, catalog, checker)
    return Item(index=index, verdict=verdict, record=record, outcomes=outcomes, calls=_spent(outcomes, catalog))


# ------------------------------------------------------------------------------------------ outputs

class Outputs:
    """The run's output files, written as samples are decided (a run of 200k calls held every sample, 3.6 GB):
    verdicts.jsonl line by line, the verified rows and their notes, and relevance samples as each verified one
    gives one — each to NAME.partial, made whole at `finish` (renamed, or copied with the rows' ids, which
    depend on every row: `_write_rows`). A rerun rebuilds the partial files from parts/, so an interrupted run
    resumes from its chunks as before. In memory: the Tally (the report's counts) and the relevance samples'
    constructions."""

    def __init__(self, out: Path, catalog: Catalog, seed: int, about: dict[str, Any], most: int) -> None:
        self.out, self.catalog, self.seed, self.about = out, catalog, seed, about
        self.tally = Tally()
        self.verdicts = _Partial(out / "verdicts.jsonl")
        self.verified = _Rows(out, "verified")
        self.relevance = _Rows(out, "relevance")
        self.constructions: list[str | None] = []
        self.answered = 0  # verified samples with a call: the k of `relevance_sample`
        # no more relevance samples are kept than `most` verified ones would give
        self.most_relevance = wanted_samples(most)
        self.required = {t.name: {p.name for p in t.spec.params if p.required} for t in catalog}
        self.asked: set[str] = set()  # the verified queries so far, as written (spaces aside)

    def _first_asked(self, item: Item) -> Item:
        """A verified sample whose query an earlier one already asks word for word fails (`duplicate_query`):
        the same question twice adds nothing to a dataset. Items come in index order, so which one is kept
        does not depend on the workers."""
        if not item.verdict.passed or item.record is None:
            return item
        query = " ".join(item.record.query.split())
        if query not in self.asked:
            self.asked.add(query)
            return item
        verdict = item.verdict.model_copy(update={"passed": False, "stage": "semantic", "reason": "duplicate_query",
                                                  "detail": "an earlier verified sample asks the same query"})
        return item.model_copy(update={"verdict": verdict})

    def add(self, items: list[Item]) -> list[Item]:
        """Decide and write `items`; they are returned as decided (a repeated query no longer verified)."""
        decided = [self._first_asked(i) for i in items]
        for i in decided:
            self.tally.add(i)
            self.verdicts.write(orjson.dumps(i.verdict.model_dump(
                include={"id", "passed", "stage", "reason", "counted", "detail", "retried_calls", "criteria"})) + b"\n")
            if not i.verdict.passed or i.record is None:
                continue
            self.verified.add(*_noted(i, self.about))
            for tool in i.record.tools:
                self.required.setdefault(tool.name, {n for n, p in tool.parameters.items() if p.required})
            if not i.record.answers:
                continue
            k, self.answered = self.answered, self.answered + 1
            if self.relevance.count < self.most_relevance:
                made = relevance_sample(i.record, k, self.seed, self.required,
                                        lambda r: serving_tool(r, self.catalog) is not None)
                if made is not None:
                    self.relevance.add(made, {})
                    self.constructions.append(made.provenance.get("construction"))
        return decided

    def finish(self) -> Tally:
        """The files made whole; stats.json, the plot and report.md from the Tally."""
        out = self.out
        self.verdicts.finish(out / "verdicts.jsonl")
        self.verified.finish(self.verified.count)
        wanted = wanted_samples(self.tally.verified)
        self.relevance.finish(wanted)
        constructions = self.constructions[:wanted]
        table = self.tally.table()
        stats = {"table": table, "relevance": len(constructions), "about": self.about,
                 "calls": self.about.get("probe_calls", 0) + self.tally.calls, "styles": self.tally.style_counts()}
        write_atomic(out / "stats.json", orjson.dumps(stats, option=_SORTED))
        write_plots(out / "plots", table)
        (out / "report.md").write_text(render_report(out.name, self.tally, stats, constructions), encoding="utf-8")
        return self.tally


class _Partial:
    """A file written line by line as NAME.partial beside its final path (truncated when a run starts: a rerun
    writes it again from parts/)."""

    def __init__(self, final: Path) -> None:
        self.path = final.with_name(final.name + ".partial")
        self.handle = self.path.open("wb")

    def write(self, line: bytes) -> None:
        self.handle.write(line)

    def finish(self, final: Path) -> None:
        self.handle.close()
        os.replace(self.path, final)

    def lines(self, limit: int) -> Iterator[bytes]:
        """The first `limit` lines written (the file closed first)."""
        self.handle.close()
        with self.path.open("rb") as handle:
            for _, line in zip(range(limit), handle, strict=False):
                yield line


class _Rows:
    """NAME.jsonl, rows of the published xlam shape, and NAME.notes.jsonl beside it, line by line: what kopa
    knows of each row and the shape has no place for. A row keeps its record's id where every id is an integer
    (a verified input file's own); generated records, named `apigen-SEED-INDEX`, are numbered 1…n. Which of the
    two is known only at the end, so the partial files hold each line without its id, which `finish` puts
    first, as the published row has it."""

    def __init__(self, out: Path, name: str) -> None:
        self.out, self.name = out, name
        self.rows = _Partial(out / f"{name}.jsonl")
        self.notes = _Partial(out / f"{name}.notes.jsonl")
        self.count = 0
        self.own: list[int] | None = []  # the records' own ids while every one is an integer

    def add(self, record: XRecord, extra: dict[str, Any]) -> None:
        if self.own is not None and record.id.isdecimal():
            self.own.append(int(record.id))
        else:
            self.own = None
        self.count += 1
        self.rows.write(_without_id(xlam_row(record, 0)))
        self.notes.write(_without_id({"id": 0, "record": record.id, "style": record.style,
                                      "provenance": record.provenance, **extra}))

    def finish(self, limit: int) -> None:
        """The first `limit` rows (and notes) with their ids, in place of the partial files."""
        limit = min(limit, self.count)
        own = self.own[:limit] if self.own is not None else None
        ids = own if own is not None and len(set(own)) == len(own) else range(1, limit + 1)
        for partial, name in ((self.rows, f"{self.name}.jsonl"), (self.notes, f"{self.name}.notes.jsonl")):
            lines = (b'{"id":%d,' % i + line for i, line in zip(ids, partial.lines(limit), strict=True))
            _write_streamed(self.out / name, lines)
            partial.path.unlink()


def _without_id(row: dict[str, Any]) -> bytes:
    """A row's JSON with its leading id taken out: b'"query":…}\n', which `b'{"id":N,' +` makes whole."""
    body = orjson.dumps({k: v for k, v in row.items() if k != "id"})
    return body[1:] + b"\n"


def _write_streamed(path: Path, lines: Iterable[bytes]) -> None:
    """write_atomic for lines that come one by one: PATH.tmp (the run folder's lock keeps it this run's), renamed
    over `path`."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("wb") as handle:
            for line in lines:
                handle.write(line)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _noted(item: Item, about: dict[str, Any]) -> tuple[XRecord, dict[str, Any]]:
    """A verified record with its provenance (what each call returned) and its verdicts per stage."""
    assert item.record is not None
    stages = {"format": "pass", "execution": "pass", "semantic": item.verdict.criteria or "pass"}
    results = [{"name": o.name, "records": o.records, "total_count": o.total_count, "digest": o.digest,
                "attempts": o.attempts} for o in item.outcomes]
    provenance = {**item.record.provenance, "generator": about["generator"], "checker": about["checker"],
                  "backend": about["backend"], "results": results}
    return item.record.model_copy(update={"provenance": provenance}), {"verdicts": stages}


def read_verified(out: Path) -> list[XRecord]:
    """The verified records of a run folder: its xlam rows, with kopa's notes on each (kopa's record id,
    style, provenance) from verified.notes.jsonl."""
    path = out / "verified.jsonl"
    if not path.exists():
        raise ApigenError(f"{out}: no verified.jsonl (run `kopa apigen generate` or `kopa apigen verify` first)")
    rows = read_lines(path, lambda line: parse_xlam_row(orjson.loads(line)), error=ApigenError,
                      what="a row of xlam-function-calling-60k (id, query, answers, tools)")
    notes = read_lines(out / "verified.notes.jsonl", orjson.loads, what="a verified row's notes", error=ApigenError)
    if [n.get("id") for n in notes] != [int(r.id) for r in rows]:
        raise ApigenError(f"{out}: verified.notes.jsonl does not follow verified.jsonl row by row")
    return [row.model_copy(update={"id": note["record"], "style": note.get("style"),
                                   "provenance": note.get("provenance") or {}})
            for row, note in zip(rows, notes, strict=True)]


