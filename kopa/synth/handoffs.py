"""What a synthesized task's chain hands from step to step: the values the agent must look up, so the
values its query may not state. Read by the leak check (kopa.synth.filters), the model judges' evidence
(kopa.synth.judges) and the audit (kopa.synth.audit) alike."""

from __future__ import annotations

from typing import Any

from kopa.synth.candidate import Candidate


def intermediate_values(candidate: Candidate) -> list[str]:
    """Every value a junction hands on and every argument a call received by reference: what the agent
    must look up, and so what the query may not state."""
    given = {x.value for x in candidate.literals}
    values = [v for j in candidate.junctions for v in j.passed]
    referenced = {s.id: {k for k, v in s.args.items() if isinstance(v, str) and "{" in v}
                  for s in candidate.task.golden}
    steps = {s.id: s.call for s in candidate.task.golden}
    calls_by_tool: dict[str, list[dict[str, Any]]] = {}
    for call in candidate.target.calls:
        calls_by_tool.setdefault(call.tool, []).append(call.arguments)
    for sid, names in referenced.items():
        for args in calls_by_tool.get(steps[sid] or "", []):
            values += [str(args[n]) for n in names if n in args]
    return [v for v in dict.fromkeys(values) if len(v) >= 3 and v not in given]
