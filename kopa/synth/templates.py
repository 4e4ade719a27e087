"""Non-sequential trajectories from explicit templates (seed §5.3), kept only when they execute.

Each block hangs off a step already in the chain (the start, or the end of a sequential prefix — then the
task is MIXED) and binds its calls from that step's records along retained edges of G*:

- SEM: two independent tools fed the value(s) of one record in one parallel turn; the answer combines
  both outputs: a fact from each about the same entity, judged by a rubric;
- CMP: the same tool on the two distinct values of a field that the source returned, in one parallel turn;
  the answer compares the results (which has the larger quantity, or by how much they differ) — symmetric
  in the two, so the API's record order cannot decide it;
- COND: a quantity of the record (or, for a list about one entity, how many records it lists) is tested
  against a pivot drawn near its observed value; the branch the condition selects is executed (the other
  branch must execute too), and the answer comes from it.

SEM and COND bind from one record, or from a list whose records all hold the one value bound (the stops of
one city): "which record" is then never the API's order. CMP on two things the user names looks each up
first (`stated_cmp`): the compared service takes what the lookups return, not a value typed into the query.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kopa.catalog.models import Tool
from kopa.edge.graph import Edge
from kopa.eval.golden import returned
from kopa.eval.task import AnswerSpec, GoldenStep, Rubric, RubricFact
from kopa.korean.vocabulary import subject
from kopa.synth.candidate import AnswerInfo, BlockInfo
from kopa.synth.junction import common_fields, cond_threshold, distinct, field_label, is_measure, number
from kopa.synth.trajectory import _HANGUL, EDGE_TRIES, START_TRIES, ChainBuild, _places

CALC = "evaluate_expression"
COUNT_LABEL = "건수"  # a SEM fact that is how many records a call lists (AnswerInfo field / by: None)
COND_TRIES = 8  # out-edges tried for the two branches (both must execute)


def _single(edge: Edge, record: dict, build: ChainBuild) -> tuple[str, str] | None:
    """(parameter, field) of the edge's first upstream binding the record holds a scalar for."""
    for param, source in sorted(edge.plan.items()):
        value = record.get(source.field or "")
        if source.kind == "UPSTREAM" and value not in (None, "") and not isinstance(value, dict | list):
            return param, source.field or ""
    return None


def _bindable(build: ChainBuild, view: dict[str, Any], constant: bool = True) -> list[tuple[Edge, str, str]]:
    """Out-edges of the chain's last tool that the first record can feed, in the build's shuffled order.
    `constant`: only fields every record holds the same value for (the one entity a list is about: the
    stops of one city all carry its code), so which record is bound is not the API's order."""
    records = view["records"]
    source = build.steps[-1].id
    # what a junction handed the source: a block bound to it again would make the source an echo hop
    incoming = {v for j in build.junctions if j.target == source for v in j.passed}
    out = []
    for edge in build._edges(build.steps[-1].call or "", limit=None):
        conn = _single(edge, records[0], build)
        if conn is None or str(records[0][conn[1]]) in incoming:
            continue
        if not constant or len({str(r.get(conn[1])) for r in records}) == 1:
            out.append((edge, *conn))
    return out


def _texts(tool: Tool, records: list[dict]) -> list[str]:
    names = sorted(common_fields(records))
    return [n for n in names if all(isinstance(r[n], str) and _HANGUL.search(r[n]) and len(r[n]) <= 40
                                    and number(r[n]) is None for r in records)]


def _quantities(tool: Tool, records: list[dict]) -> list[str]:
    names = sorted(common_fields(records))
    return [n for n in names if is_measure(tool, n) and all(number(r[n]) is not None for r in records)]


def sem(build: ChainBuild, view: dict[str, Any]) -> tuple[AnswerSpec, AnswerInfo, BlockInfo] | None:
    source = build.steps[-1]
    options = _bindable(build, view)
    if len(options) < 2:
        return None
    second = next((o for o in options[1:] if o[0].target != options[0][0].target), None)
    if second is None:
        return None
    (ea, pa, fa), (eb, pb, fb) = options[0], second
    gid = f"s{len(build.steps) + 1}"
    members = []
    for suffix, edge, param, fld in (("a", ea, pa, fa), ("b", eb, pb, fb)):
        args = build._rest(build.ctx.catalog[edge.target], edge, {param: f"{{{source.id}.records[0].{fld}}}"}, gid)
        if args is None:
            return None
        members.append(GoldenStep(id=f"{gid}{suffix}", call=edge.target, args=args))
    group = GoldenStep(id=gid, parallel=members)
    out = build._try(group)
    if out is None:
        return None
    tools = [ea.target, eb.target]
    views = [build.executor.run.scope[m.id] for m in members]
    catalog = build.ctx.catalog
    for member, tool in zip(members, tools, strict=True):
        build._note_literals(catalog[tool], member)
    block = BlockInfo(kind="SEM", source=source.id, records=returned(view), steps=[m.id for m in members],
                      tools=tools,
                      subjects=[subject(catalog[t]) for t in tools],
                      fields=[field_label(catalog[source.call or ""], f) for f in (fa, fb)],
                      values=[str(view["records"][0][f]) for f in (fa, fb)])
    # One fact from each call about the one entity: a name or phrase of its one record, or how many records
    # it lists ("강남구의 공영주차장 수와 도시공원 수") — reported side by side, never summed.
    facts: list[tuple[str, str | None, str, str]] = []  # (step, field or None for the count, label, value)
    for member, tool, v in zip(members, tools, views, strict=True):
        records = v["records"]
        if len(records) > 1:
            facts.append((member.id, None, COUNT_LABEL, str(len(records))))
            continue
        # not the code it was called with, nor what the user said (군포시's 시군명 is 군포시): no fact at all
        stated = set(block.values) | {x.value for x in build.literals} | {x.phrase for x in build.literals}
        texts = [t for t in _texts(catalog[tool], records) if str(records[0][t]) not in stated]
        if texts:
            name = texts[int(build.rng.integers(len(texts)))]
            facts.append((member.id, name, field_label(catalog[tool], name), str(records[0][name])))
    if len(facts) != 2 or facts[0][3] == facts[1][3]:
        build._rollback(gid)  # two distinct facts about the one entity, or nothing
        return None
    forms = [f"{{{sid}.records|len}}" if name is None else f"{{{sid}.records[0].{name}}}"
             for sid, name, _, _ in facts]
    spec = AnswerSpec(type="judge", value=" / ".join(forms), rubric=Rubric(
        facts=[RubricFact(fact=f"{subject(catalog[t])} {label}", forms=[form])
               for (_, _, label, _), form, t in zip(facts, forms, tools, strict=True)]))
    info = AnswerInfo(kind="facts", step=gid, field=facts[0][1], label=facts[0][2], by=facts[1][1],
                      by_label=facts[1][2])
    build.tools += tools
    return spec, info, block


def cmp(build: ChainBuild, view: dict[str, Any]) -> tuple[AnswerSpec, AnswerInfo, BlockInfo] | None:
    source = build.steps[-1]
    records = view["records"]
    catalog = build.ctx.catalog
    for edge, param, fld in _bindable(build, view, constant=False):
        if len(distinct([r.get(fld) for r in records])) != 2:
            continue  # exactly two: "the two X" is then what the source returned, whatever its order
        second = next(i for i, r in enumerate(records) if str(r.get(fld)) != str(records[0][fld]))
        gid = f"s{len(build.steps) + 1}"
        members = []
        for i, suffix in enumerate("ab"):
            args = build._rest(catalog[edge.target], edge,
                               {param: f"{{{source.id}.records[{(0, second)[i]}].{fld}}}"}, gid)
            if args is None:
                break
            members.append(GoldenStep(id=f"{gid}{suffix}", call=edge.target, args=args))
        if len(members) != 2 or members[0].args.keys() != members[1].args.keys():
            continue
        if build._try(GoldenStep(id=gid, parallel=members)) is None:
            continue
        views = [build.executor.run.scope[m.id]["records"] for m in members]
        tool = catalog[edge.target]
        quantities = _differing_quantities(tool, views)
        if not quantities:
            if len(views[0]) == len(views[1]):
                build._rollback(gid)
                continue
            return _count_difference(build, source.id, fld, edge, members, records, second)
        q = quantities[int(build.rng.integers(len(quantities)))]
        names = [t for t in _texts(tool, [views[0][0], views[1][0]]) if views[0][0][t] != views[1][0][t]]
        block = BlockInfo(kind="CMP", source=source.id, records=returned(view), steps=[m.id for m in members],
                          tools=[edge.target] * 2,
                          subjects=[subject(tool)] * 2, fields=[field_label(catalog[source.call or ""], fld)] * 2,
                          values=[str(records[0][fld]), str(records[second][fld])], quantity=field_label(tool, q),
                          quantity_field=q)
        build.tools.append(edge.target)
        build._note_literals(tool, members[0])
        if names:
            name = names[int(build.rng.integers(len(names)))]
            spec = AnswerSpec(type="string", value=f"{{{gid}.records|maxby:{q}|get:{name}}}")
            return spec, AnswerInfo(kind="argmax", step=gid, field=name, label=field_label(tool, name), by=q,
                                    by_label=field_label(tool, q)), block
        made = _difference(build, members, views, q)
        if made is None:
            build.tools.pop()
            build._rollback(gid)
            continue
        calc, places = made
        build.tools.append(CALC)
        spec = AnswerSpec(type="number", value=f"{{{calc.id}.records[0].exact}}", precision=places or None)
        return spec, AnswerInfo(kind="difference", step=calc.id, field=q, label=field_label(tool, q),
                                precision=places or None, number=True), block
    return None


def _differing_quantities(tool: Tool, views: list[list[dict]]) -> list[str]:
    """Measures the two one-record results both hold, with different values: what they can differ in."""
    if not all(len(v) == 1 for v in views):
        return []
    return [q for q in _quantities(tool, [v[0] for v in views]) if number(views[0][0][q]) != number(views[1][0][q])]


def _difference(build: ChainBuild, members: list[GoldenStep], views: list[list[dict]],
                q: str | None) -> tuple[GoldenStep, int] | None:
    """The calculator step |a − b| over the two members — of quantity `q` of their one records, or (q None) of
    how many records each lists — executed, with the decimal places its exact value has; None (nothing
    executed) when that value has no finite decimal form or the step fails."""
    if q is not None:
        operands = [f"{{{m.id}.records[0].{q}|num}}" for m in members]
        exact = abs(number(views[0][0][q]) - number(views[1][0][q]))  # type: ignore[operator]
    else:
        operands = [f"{{{m.id}.records|len}}" for m in members]
        exact = Decimal(abs(len(views[0]) - len(views[1])))
    places = _places(exact)
    if places is None:
        return None
    calc = GoldenStep(id=f"s{len(build.steps) + 1}", call=CALC,
                      args={"expression": f"abs({operands[0]} - {operands[1]})"})
    return None if build._try(calc) is None else (calc, places)


def _count_difference(build: ChainBuild, source: str, fld: str, edge: Edge, members: list[GoldenStep],
                      records: list[dict], second: int):
    """CMP on multi-record answers: how many more records the first call returns than the second."""
    catalog = build.ctx.catalog
    tool = catalog[edge.target]
    views = [build.executor.run.scope[m.id]["records"] for m in members]
    made = _difference(build, members, views, None)
    if made is None:
        build._rollback(build.steps[-1].id)
        return None
    calc, _ = made
    build.tools += [edge.target, CALC]
    build._note_literals(tool, members[0])
    block = BlockInfo(kind="CMP", source=source, records=returned(build.executor.run.scope[source]),
                      steps=[m.id for m in members],
                      tools=[edge.target] * 2,
                      subjects=[subject(tool)] * 2, fields=[field_label(catalog[_source_tool(build, source)], fld)] * 2,
                      values=[str(records[0][fld]), str(records[second][fld])], quantity="결과 건수")
    return (AnswerSpec(type="number", value=f"{{{calc.id}.records[0].exact}}"),
            AnswerInfo(kind="difference", step=calc.id, label="결과 건수", number=True), block)


def stated_cmp(build: ChainBuild) -> tuple[AnswerSpec, AnswerInfo, BlockInfo] | None:
    """CMP on two things the user names (two districts, two parties, two kinds): each looked up in one
    parallel turn, then one service asked about each by what its lookup returned (a code the user does not
    know), in a second; the answer is how far apart the two results are — a quantity of their one record
    each, or how many records each lists."""
    for _ in range(START_TRIES):
        drawn = build.draw_start()
        if drawn is None:
            continue
        tool, args = drawn
        params = build.stated_filters(tool, args)
        if not params:
            continue
        param = params[int(build.rng.integers(len(params)))]
        pair = (build.stated_value(param), build.stated_value(param))
        if pair[0] == pair[1]:
            continue
        lookups = [GoldenStep(id=f"s1{suffix}", call=tool.name, args={**args, param.name: value})
                   for suffix, value in zip("ab", pair, strict=True)]
        if build._try(GoldenStep(id="s1", parallel=lookups)) is None:
            continue
        made = _compare_lookups(build, tool.name, lookups)
        if made is None:
            build._rollback("s1")
            continue
        for lookup in lookups:
            build._note_literals(tool, lookup)
        spec, info, block = made
        block = block.model_copy(update={"values": list(pair), "records": len(
            build.executor.run.scope["s1a"]["records"])})
        build.tools[:0] = [tool.name]
        return spec, info, block
    return None


def _compare_lookups(build: ChainBuild, source_tool: str, lookups: list[GoldenStep]
                     ) -> tuple[AnswerSpec, AnswerInfo, BlockInfo] | None:
    """The second turn of `stated_cmp`: one out-edge of the lookups' tool fed, for each lookup, the one value
    its records hold for the edge's field (the entity's code), then the difference of the two results."""
    catalog = build.ctx.catalog
    found = [build.executor.run.scope[x.id] for x in lookups]
    for edge in build._edges(source_tool, limit=EDGE_TRIES):
        conns = [_single(edge, view["records"][0], build) for view in found]
        if conns[0] is None or conns[0] != conns[1]:
            continue
        param, fld = conns[0]
        values = [{str(r.get(fld)) for r in view["records"]} for view in found]
        if any(len(v) != 1 for v in values) or values[0] == values[1]:
            continue  # each lookup names one entity, and the two are different ones
        target = catalog[edge.target]
        rest = build._rest(target, edge, {param: "{item}"}, "s2")
        if rest is None:
            continue
        members = [GoldenStep(id=f"s2{suffix}", call=edge.target,
                              args={**rest, param: f"{{{lookup.id}.records[0].{fld}}}"})
                   for suffix, lookup in zip("ab", lookups, strict=True)]
        if build._try(GoldenStep(id="s2", parallel=members)) is None:
            continue
        views = [build.executor.run.scope[m.id]["records"] for m in members]
        quantities = _differing_quantities(target, views)
        q = quantities[int(build.rng.integers(len(quantities)))] if quantities else None
        if q is None and (len(views[0]) == len(views[1]) or min(len(views[0]), len(views[1])) < 2):
            build._rollback("s2")  # a count of one is a lookup, not a listing two things can differ in
            continue
        made = _difference(build, members, views, q)
        if made is None:
            build._rollback("s2")
            continue
        calc, places = made
        build._note_literals(target, members[0])
        build.tools += [edge.target, CALC]
        label = field_label(target, q) if q is not None else COUNT_LABEL
        source = catalog[source_tool]
        block = BlockInfo(kind="CMP", source=None, steps=[m.id for m in members], tools=[edge.target] * 2,
                          subjects=[subject(target)] * 2, fields=[field_label(source, fld)] * 2,
                          quantity=label, quantity_field=q, lookup=subject(source))
        return (AnswerSpec(type="number", value=f"{{{calc.id}.records[0].exact}}", precision=places or None),
                AnswerInfo(kind="difference", step=calc.id, field=q, label=label, precision=places or None,
                           number=True), block)
    return None


def _source_tool(build: ChainBuild, step_id: str) -> str:
    return next(s.call or "" for s in build.steps if s.id == step_id)


def cond(build: ChainBuild, view: dict[str, Any]):
    source = build.steps[-1]
    records = view["records"]
    catalog = build.ctx.catalog
    tool = catalog[source.call or ""]
    # one record: a quantity of it; a list about one entity (the bound fields hold one value): how many
    # records it lists ("강남구의 공영주차장이 30건 이상이면")
    quantities: list[str | None] = list(_quantities(tool, records[:1])) if len(records) == 1 else [None]
    if not quantities:
        return None
    q = quantities[int(build.rng.integers(len(quantities)))]
    value = number(records[0][q]) if q is not None else Decimal(len(records))
    assert value is not None
    if value == 0:  # "0 이상이면" holds for every count and every measure a person would test: no condition
        return None
    holds = bool(build.rng.integers(2))
    threshold = cond_threshold(value, holds, whole=q is None)
    sid = f"s{len(build.steps) + 1}"
    runs: list[tuple[tuple[Edge, str, str], GoldenStep]] = []  # branches that execute, in the build's order
    for edge, param, fld in _bindable(build, view)[:COND_TRIES]:
        if any(e.target == edge.target for (e, _, _), _ in runs):
            continue
        args = build._rest(catalog[edge.target], edge, {param: f"{{{source.id}.records[0].{fld}}}"}, sid)
        step = GoldenStep(id=sid, call=edge.target, args=args) if args is not None else None
        if step is not None and build._try(step) is not None:
            build._rollback(sid)
            runs.append(((edge, param, fld), step))
        if len(runs) == 2:
            break
    if len(runs) < 2:
        return None
    (first, step_first), (second, step_second) = runs
    taken, step = (first, step_first) if value >= threshold else (second, step_second)
    out = build._try(step)
    if out is None:
        return None
    build.tools.append(taken[0].target)
    build._note_literals(catalog[taken[0].target], step)
    block = BlockInfo(kind="COND", source=source.id, records=returned(view), steps=[sid],
                      tools=[first[0].target, second[0].target],
                      subjects=[subject(catalog[first[0].target]), subject(catalog[second[0].target])],
                      fields=[field_label(tool, first[2]), field_label(tool, second[2])],
                      values=[str(records[0][first[2]]), str(records[0][second[2]])],
                      quantity=field_label(tool, q) if q is not None else COUNT_LABEL, quantity_field=q, op=">=",
                      threshold=str(threshold), taken=0 if taken is first else 1)
    chosen = build.answer(out)
    if chosen is None:
        build.tools.pop()
        build._rollback(sid)
        return None
    return chosen[0], chosen[1], block


BLOCKS = {"SEM": sem, "CMP": cmp, "COND": cond}
