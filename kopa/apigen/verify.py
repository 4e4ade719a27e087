"""Stage 1 (format) and stage 2 (execution) of the seed's verification, with reason codes.

Format: the output parses as JSON, has `query` and `answers` (a non-empty list of `{name, arguments}`),
every name is a function of the sampled library (else `hallucinated_function`), every argument a parameter
of that function (`unknown_argument`), every value of the parameter's declared type (`wrong_type`), every
parameter the function requires given (`missing_required_argument`: the runtime would fill a default the
row's own spec says must be sent).

Execution: every call runs on the backend through kopa's runtime — any backend string (sim, replay, live,
faults:…@…); the runtime fills the key, as for any tool call, so a key a record passes as an argument is
dropped first. A failure is read by kopa's error class:

- structural → the sample's fault, counted: `missing_required_argument`, `type_error`, `invalid_parameter`,
  `unknown_argument` (the record documents a parameter the real tool does not take), `runtime_error` (the
  service refused otherwise, e.g. a retired endpoint), `not_executable` (a tool that is not in kopa's
  catalog: nothing to run it on);
- environmental (rate limit, timeout, 5xx, maintenance) → retried by the runtime with backoff; one still
  failing after the retries is `environmental:<kind>`, reported apart and **not counted**: a rate limit is
  the world's fault, not the sample's. `auth:<kind>` likewise (the runtime holds the keys).

An answer with no records ("no data") executed: whether an empty answer answers the query is stage 3's
question (the seed's "no errors in the results" criterion), so it passes here.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict

from kopa.apigen.record import RecordError, XCall, XParam, XRecord, XTool, parse_tools
from kopa.catalog.loader import Catalog
from kopa.edge.plan import GENERIC_NAMES
from kopa.tools.results import ToolResult
from kopa.tools.runtime import ToolRuntime

Stage = Literal["format", "execution", "semantic"]
KEY_NAMES = frozenset(n for n in GENERIC_NAMES if "key" in n or n == "oc")
RESULT_RECORDS_KEPT = 3  # records of each answer kept for the semantic checker and the verified file


class Verdict(BaseModel):
    """One line of verdicts.jsonl: `id`, `passed`, `stage`, `reason`, and what else explains them."""

    model_config = ConfigDict(extra="forbid")

    id: str
    passed: bool
    stage: Stage | None = None
    reason: str | None = None
    counted: bool = True  # False: an environmental or auth failure, not a bad sample
    detail: str = ""
    retried_calls: int = 0  # calls that met an environmental failure, were retried and answered
    criteria: dict[str, str] = {}  # the semantic checker's findings per criterion


class CallOutcome(BaseModel):
    """What one call of an answer did on the backend."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any]
    ok: bool
    records: int = 0
    total_count: int | None = None
    error_class: str | None = None
    kind: str | None = None
    message: str | None = None
    attempts: int = 1
    digest: str = ""  # SHA-256 of the records, canonical: re-execution compares it
    sample: list[dict[str, Any]] = []  # the first records, for the semantic checker


# ------------------------------------------------------------------------------------------ stage 1

def _type_ok(param: XParam, value: Any) -> bool:
    kind = param.type
    if kind is None or value is None:
        return True
    if kind == "string":
        return isinstance(value, str | int | float) and not isinstance(value, bool)
    if kind == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("+-").isdigit())
    if kind == "number":
        if isinstance(value, bool):
            return False
        if isinstance(value, int | float):
            return True
        try:
            float(str(value))
        except ValueError:
            return False
        return True
    if kind == "boolean":
        return isinstance(value, bool) or value in ("true", "false", "Y", "N")
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def style_mismatch(style: str, library: list[XTool], calls: list[XCall]) -> str | None:
    """Why `calls` are not a sample of `style` (None: they are): simple is one call; multiple one call among
    two or more tools; parallel two or more calls of one tool; parallel_multiple calls of two or more tools."""
    called = {c.name for c in calls}
    if style == "simple" and len(calls) != 1:
        return f"a simple sample makes one call, not {len(calls)}"
    if style == "multiple" and (len(calls) != 1 or len(library) < 2):
        return f"a multiple sample makes one call among 2+ tools, not {len(calls)} among {len(library)}"
    if style == "parallel" and (len(calls) < 2 or len(called) != 1):
        return f"a parallel sample makes 2+ calls of one tool, not {len(calls)} of {len(called)}"
    if style == "parallel_multiple" and len(called) < 2:
        return f"a parallel_multiple sample calls 2+ tools, not {len(called)}"
    return None


def format_check(raw: Any, library: list[XTool], *, record_id: str, allow_empty: bool = False,
                 style: str | None = None) -> tuple[XRecord | None, Verdict | None]:
    """(the parsed record, None) or (None, the failing verdict). `raw` is text (a generator's output) or a
    parsed JSON value (a line of a third-party file); `library` is the sampled tools; with `style`, the calls
    must have its shape (`style_mismatch`) — a one-call answer to a parallel prompt is no parallel sample."""
    def fail(reason: str, detail: str) -> tuple[None, Verdict]:
        return None, Verdict(id=record_id, passed=False, stage="format", reason=reason, detail=detail[:300])

    if isinstance(raw, str):
        try:
            raw = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            return fail("unparseable_json", str(exc))
    if not isinstance(raw, dict):
        return fail("unparseable_json", f"a JSON {type(raw).__name__}, not an object")
    for key in ("query", "answers"):
        if key not in raw:
            return fail("missing_field", f"no {key!r}")
    if not isinstance(raw["query"], str) or not raw["query"].strip():
        return fail("missing_field", "query is empty or not text")
    answers = raw["answers"]
    if isinstance(answers, str):
        try:
            answers = orjson.loads(answers)
        except orjson.JSONDecodeError as exc:
            return fail("unparseable_json", f"answers: {exc}")
    if not isinstance(answers, list):
        return fail("bad_answers", "answers is not a list")
    if not answers and not allow_empty:
        return fail("no_calls", "answers is empty")
    tools = {t.name: t for t in library}
    calls: list[XCall] = []
    for i, call in enumerate(answers):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return fail("bad_answers", f"answers[{i}] has no function name")
        args = call.get("arguments", {})
        if isinstance(args, str):
            try:
                args = orjson.loads(args)
            except orjson.JSONDecodeError:
                return fail("bad_answers", f"answers[{i}].arguments is not JSON")
        if not isinstance(args, dict):
            return fail("bad_answers", f"answers[{i}].arguments is not an object")
        tool = tools.get(call["name"])
        if tool is None:
            return fail("hallucinated_function", f"answers[{i}]: {call['name']!r} is not in the library "
                                                 f"({', '.join(sorted(tools))})")
        for name, value in args.items():
            param = tool.parameters.get(name)
            if param is None:
                return fail("unknown_argument", f"answers[{i}]: {call['name']} has no parameter {name!r}")
            if not _type_ok(param, value):
                return fail("wrong_type", f"answers[{i}]: {name}={value!r} is not a {param.type}")
        missing = [name for name, param in tool.parameters.items() if param.required and name not in args]
        if missing:
            return fail("missing_required_argument", f"answers[{i}]: {call['name']} requires {', '.join(missing)}")
        calls.append(XCall(name=call["name"], arguments=args))
    why = style_mismatch(style, library, calls) if style is not None else None
    if why is not None:
        return fail("style_mismatch", why)
    return XRecord(id=record_id, query=raw["query"], tools=library, answers=calls), None


def read_record(raw: Any, line: int) -> tuple[XRecord | None, Verdict | None]:
    """A third-party line: its own `tools` are the library (the format checker's reference)."""
    record_id = str(raw.get("id", line)) if isinstance(raw, dict) else str(line)
    if not isinstance(raw, dict):
        return None, Verdict(id=record_id, passed=False, stage="format", reason="unparseable_json",
                             detail=f"line {line}: a JSON {type(raw).__name__}, not an object")
    try:
        library = parse_tools(raw.get("tools", []))
    except RecordError as exc:
        return None, Verdict(id=record_id, passed=False, stage="format", reason="bad_tools", detail=str(exc))
    relevance = bool((raw.get("provenance") or {}).get("relevance"))
    style = raw.get("style") if isinstance(raw.get("style"), str) else None  # a line that states one is held to it
    record, verdict = format_check(raw, library, record_id=record_id, allow_empty=relevance, style=style)
    if record is not None:
        record = record.model_copy(update={"style": raw.get("style"), "provenance": raw.get("provenance") or {}})
    return record, verdict


# ------------------------------------------------------------------------------------------ stage 2

def digest(records: list[dict[str, Any]]) -> str:
    return hashlib.sha256(orjson.dumps(records, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _outcome(result: ToolResult, name: str, args: dict[str, Any]) -> CallOutcome:
    error = result.error
    return CallOutcome(name=name, arguments=args, ok=result.ok, records=len(result.records),
                       total_count=result.total_count, error_class=error.error_class if error else None,
                       kind=error.kind if error else None, message=error.message[:200] if error else None,
                       attempts=max(1, len(result.attempts)), digest=digest(result.records) if result.ok else "",
                       sample=result.records[:RESULT_RECORDS_KEPT])


def failure_reason(outcome: CallOutcome) -> tuple[str, bool] | None:
    """(reason, counted) of a failed call; None when the call executed (records or no data)."""
    if outcome.ok or outcome.kind == "no_data":
        return None
    if outcome.error_class == "environmental":
        return f"environmental:{outcome.kind}", False
    if outcome.error_class == "auth":
        return f"auth:{outcome.kind}", False
    kind, message = outcome.kind or "", outcome.message or ""
    if kind == "not_executable":
        return "not_executable", True
    if kind == "missing_param":
        return "missing_required_argument", True
    if kind == "bad_param" and message.startswith("unexpected argument"):
        return "unknown_argument", True  # the record documents a parameter the real tool does not take
    if kind == "bad_param":
        return ("type_error" if re.search(r"(?<!un)expected an? ", message) else "invalid_parameter"), True
    if kind == "unknown_tool":
        return "hallucinated_function", True
    if kind == "page_out_of_range":
        return "invalid_parameter", True
    return "runtime_error", True


def issue_keys(runtime: ToolRuntime, catalog: Catalog) -> None:
    """Every platform's key in the runtime's state, as an episode's setup issues them."""
    for platform in sorted(catalog.platforms):
        if platform != "session":
            runtime.call("issue_api_key", {"platform": platform})


def execute(record: XRecord, runtime: ToolRuntime, catalog: Catalog) -> list[CallOutcome]:
    outcomes = []
    for call in record.answers:
        args = {k: v for k, v in call.arguments.items() if k.lower() not in KEY_NAMES}
        if call.name not in catalog:
            outcomes.append(CallOutcome(name=call.name, arguments=args, ok=False, error_class="structural",
                                        kind="not_executable", message="not a tool of kopa's catalog"))
            continue
        try:
            result = runtime.call(call.name, args)
        except Exception as exc:  # a wire or parser crash is this call's runtime error
            outcomes.append(CallOutcome(name=call.name, arguments=args, ok=False, error_class="structural",
                                        kind="exception", message=f"{type(exc).__name__}: {exc}"[:200]))
            continue
        outcomes.append(_outcome(result, call.name, args))
    return outcomes


def execution_verdict(record_id: str, outcomes: list[CallOutcome]) -> Verdict | None:
    """The failing verdict (a counted failure first: it is the sample's; else an environmental one), or None."""
    reasons = [(i, failure_reason(o)) for i, o in enumerate(outcomes)]
    failures = [(i, f) for i, f in reasons if f is not None]
    retried = sum(o.attempts > 1 and o.ok for o in outcomes)
    counted = [(i, f) for i, f in failures if f[1]]
    chosen = counted[0] if counted else (failures[0] if failures else None)
    if chosen is None:
        return None
    i, (reason, is_counted) = chosen
    o = outcomes[i]
    return Verdict(id=record_id, passed=False, stage="execution", reason=reason, counted=is_counted,
                   detail=f"answers[{i}] {o.name}: {o.error_class}/{o.kind}: {o.message or ''}"[:300],
                   retried_calls=retried)
