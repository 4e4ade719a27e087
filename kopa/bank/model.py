"""The intent bank's schema: each intent a question with slots, the golden steps that answer it, and the
pattern its handoffs take. Loaded once per process from `bank/*.yaml` and checked against the catalog, so a
misspelt tool, parameter, slot or step is refused with the intent it belongs to."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kopa.catalog.loader import Catalog, load_catalog
from kopa.errors import UserError
from kopa.eval.task import AnswerSpec, GoldenStep
from kopa.eval.template import REF
from kopa.korean.sentence import PLACEHOLDER, placeholders

BANK = Path(__file__).with_name("data")
PATTERN = re.compile(r"^(?:(?:SEQ|FAN|DRV)(?:\+(?:SEQ|FAN|DRV))*(?:\+(?:SEM|CMP|COND))?|SEM|CMP|COND)$")


class IntentError(UserError, ValueError):
    """An intent that does not load or does not fit the catalog: names the file, the intent and why."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Pick(_Model):
    """A value a person knows — a company, a school, a bill by its name — drawn from the records a listing
    call returns. The listing is a probe (not part of the task): the question names what it found."""

    kind: Literal["pick"]
    call: str
    args: dict[str, Any] = {}
    pages: Literal["one", "all"] = "one"
    where: str | None = Field(None, description="a selector over the probe's records, as in a reference: "
                                                "'?SCHUL_KND_SC_NM=고등학교'")
    say: str = Field(description="how the value is said, over one record's fields: '{SCHUL_NM}' ({F|date}: a day "
                                 "as a person writes it, {F|number}: a number with its commas)")
    parts: dict[str, str] = Field({}, description="more phrases over the same record, e.g. {day: '{PROC_DT|date}'}")
    distinct: bool = Field(False, description="only values said by one record of the probe (a name two bills "
                                              "share names neither)")
    differs_from: str | None = Field(None, description="another pick this one must differ from (a pair)")
    phrases: dict[str, str] = Field({}, description="how a person says a name the service spells otherwise "
                                                   "(세종특별시 → 세종시) or that two places share (광주시 → 경기 "
                                                   "광주시); steps read the record's own field (<city.cityname>)")


class Dated(_Model):
    """A day, month or year counted back from today: 'back' = (nearest, farthest) days, months or years."""

    kind: Literal["day", "month", "year"]
    back: tuple[int, int] = (0, 0)
    weekday: bool = Field(False, description="a day from Monday to Friday (a trading day)")


class Choice(_Model):
    """One of hand-written options, each with what the question says ('say') and what the steps read."""

    kind: Literal["choice"]
    options: list[dict[str, str]] = Field(min_length=1)

    @model_validator(mode="after")
    def _said(self) -> Choice:
        if any("say" not in o for o in self.options):
            raise ValueError("every option needs a 'say'")
        return self


class Observed(_Model):
    """A pivot observed in an executed step's records (seed §5.3's DRV process node): a threshold (ge, le),
    a day (after) or one kind (eq), drawn so that 1..φ distinct values of `passes` pass it."""

    kind: Literal["observed"]
    step: str
    where: str | None = Field(None, description="a selector over the step's records the pivot is drawn among: "
                                                "'?updownTypeCode=E'")
    field: str
    op: Literal["ge", "le", "after", "eq"]
    passes: str
    unit: str = Field("", description="said after the number: 원, 명, 곳")
    phrases: dict[str, str] = Field({}, description="eq: each value as the question says it ('부결' → '부결된'); "
                                                    "a value with none is not drawn")


Slot = Annotated[Pick | Dated | Choice | Observed, Field(discriminator="kind")]


class Ask(_Model):
    """One way to ask about the realized trajectory: the question and its answer (a golden answer template;
    type 'date' is a string answer accepted in every usual written form of the day)."""

    q: str
    answer: dict[str, Any]
    steps: list[dict[str, Any]] = Field([], description="steps only this ask needs (a calculation)")
    positive: bool = Field(False, description="the answer is a number above zero: '몇 명 많나요?' is asked only "
                                              "where there are more (a question does not presuppose what is false); "
                                              "a draw where there are not is refused and drawn again")


class Cond(_Model):
    """COND: a quantity tested against a threshold near its observed value; the branch the test selects is
    executed (the other must execute too), and the ask answers from it."""

    test: str = Field(description="a reference to the tested number: '{emp.records|len}'")
    unit: str = ""
    then: list[dict[str, Any]]
    otherwise: list[dict[str, Any]]


class Intent(_Model):
    id: str
    pattern: str = Field(description="the junction types in order and the block: DRV, SEQ+FAN, SEM, DRV+CMP")
    slots: dict[str, Slot] = {}
    steps: list[dict[str, Any]] = Field(min_length=1)
    block: str | None = Field(None, description="the parallel group that is the SEM or CMP template")
    cond: Cond | None = None
    asks: list[Ask] = Field(min_length=1)
    otherwise_asks: list[Ask] = Field([], description="COND: the asks' answers when the test fails, in order")
    weight: float = Field(1.0, gt=0)

    @model_validator(mode="after")
    def _shape(self) -> Intent:
        if not PATTERN.match(self.pattern):
            raise ValueError(f"pattern {self.pattern!r} is not junction types (SEQ/FAN/DRV) then a block")
        if self.pattern.endswith(("SEM", "CMP")) != (self.block is not None):
            raise ValueError("a SEM or CMP pattern names its parallel group in 'block', and only such a one")
        if self.pattern.endswith("COND") != (self.cond is not None):
            raise ValueError("a COND pattern gives 'cond', and only such a one")
        if self.cond is not None and len(self.otherwise_asks) != len(self.asks):
            raise ValueError("a COND intent answers each ask in both branches ('otherwise_asks')")
        return self

    @property
    def category(self) -> str:
        kinds = self.pattern.split("+")
        return kinds[0] if len(kinds) == 1 else "MIXED"


# ------------------------------------------------------------------------------------------ checking

def _placeholder_free(value: Any) -> Any:
    """`value` with every <slot> replaced by a sample, so that steps validate as golden steps."""
    if isinstance(value, str):
        return PLACEHOLDER.sub("X", value)
    if isinstance(value, dict):
        return {k: _placeholder_free(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_placeholder_free(v) for v in value]
    return value


def golden_steps(raw: list[dict[str, Any]]) -> list[GoldenStep]:
    return [GoldenStep.model_validate(_placeholder_free(s)) for s in raw]


def _flat(steps: list[GoldenStep]) -> list[GoldenStep]:
    return [x for s in steps for x in ([s] if s.parallel is None else [s, *s.parallel])]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _check(intent: Intent, catalog: Catalog) -> None:
    """Every tool and parameter exists, every placeholder names a slot, every reference an earlier step."""
    branches = [intent.cond.then, intent.cond.otherwise] if intent.cond else []
    raw_steps = [*intent.steps, *(s for b in branches for s in b), *(s for a in intent.asks for s in a.steps),
                 *(s for a in intent.otherwise_asks for s in a.steps)]
    steps = _flat(golden_steps(raw_steps))
    ids = [s.id for s in steps]
    # one realization runs the steps, one branch and one ask's own steps: ids are unique along each such run
    for branch in branches or [[]]:
        for ask_steps in [a.steps for a in [*intent.asks, *intent.otherwise_asks]]:
            run = [s.id for s in _flat(golden_steps([*intent.steps, *branch, *ask_steps]))]
            if len(run) != len(set(run)):
                raise ValueError(f"step ids repeat in one realization: {run}")
    for step in steps:
        if step.call is None:
            continue
        if step.call not in catalog:
            raise ValueError(f"step {step.id}: unknown tool {step.call!r}")
        params = {p.name for p in catalog[step.call].spec.params}
        unknown = sorted(set(step.args) - params)
        if unknown:
            raise ValueError(f"step {step.id}: {step.call} takes no {', '.join(unknown)} (it takes {sorted(params)})")
    for name, slot in intent.slots.items():
        if isinstance(slot, Pick) and slot.call not in catalog:
            raise ValueError(f"slot {name}: unknown tool {slot.call!r}")
        if isinstance(slot, Observed) and slot.step not in ids:
            raise ValueError(f"slot {name}: no step {slot.step!r}")
    texts = [*_strings(raw_steps), *(a.q for a in [*intent.asks, *intent.otherwise_asks]),
             *_strings([a.answer for a in [*intent.asks, *intent.otherwise_asks]])]
    for text in texts:
        for named, _ in placeholders(text):
            if named not in intent.slots and named not in ("today", "threshold"):
                raise ValueError(f"{text!r} names no slot {named!r}; slots: {sorted(intent.slots)}")
    known = set(ids) | {"item", "today"}
    answers = _strings([a.answer for a in [*intent.asks, *intent.otherwise_asks]])
    for text in _strings(raw_steps) + answers:
        for ref in REF.findall(text):
            head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", ref.strip())
            # an answer's aliases and rubric may name the answer itself: {answer|…}
            if head is not None and head.group(0) not in known and not (text in answers and head.group(0) == "answer"):
                raise ValueError(f"{text!r} refers to no step {head.group(0)!r}")
    for ask in [*intent.asks, *intent.otherwise_asks]:
        AnswerSpec.model_validate({**_placeholder_free(ask.answer), "type": "string"}
                                  if ask.answer.get("type") == "date" else _placeholder_free(ask.answer))


@cache
def load_bank(folder: Path = BANK) -> tuple[Intent, ...]:
    """Every intent of the bank, checked against the catalog; ids are unique across files."""
    catalog = load_catalog()
    out: list[Intent] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise IntentError(f"{path}: not YAML ({exc})") from exc
        for raw in data.get("intents", []):
            where = f"{path.name}: intent {raw.get('id', '?') if isinstance(raw, dict) else '?'}"
            try:
                intent = Intent.model_validate(raw)
                _check(intent, catalog)
            except (ValidationError, ValueError) as exc:
                raise IntentError(f"{where}: {str(exc).splitlines()[0] if isinstance(exc, ValidationError) else exc}"
                                  + (f" ({exc.errors()[0]['loc']}: {exc.errors()[0]['msg']})"
                                     if isinstance(exc, ValidationError) else "")) from exc
            if intent.id in seen:
                raise IntentError(f"{where}: the id is also used in {seen[intent.id].name}")
            seen[intent.id] = path
            out.append(intent)
    return tuple(out)

