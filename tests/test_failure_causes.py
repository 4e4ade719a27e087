"""Failure causes that say what a model did (benchmark/SCORING.md, "Failure causes"): a scripted model behind
a real OpenAI-compatible HTTP server plays two KOPA-Bench tasks through `kopa bench run`, one episode per way
of failing, and the run's causes table names each way once — decided from the stored transcript alone."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.policies.openai_agent import ROLLOUT_STRIDE
from tests.fakes.chat_server import ChatServer, Reply, calls, last_tool_results, text

# district-001: 용인시's mean monthly population (a gg key, the city's code, its population, a division).
# district-005: 용인시's public parking spaces over private ones (its code, its parking lots in one page).
POPULATION, PARKING = "district-001", "district-005"


def _code(request) -> str:
    (found,) = last_tool_results(request)
    return found["records"][0]["SIGUN_CD"]


KEY = calls(("issue_api_key", {"platform": "gg"}))
YONGIN = calls(("find_gg_sigun_code", {"SIGUN_NM": "용인시"}))


def _lots(size: int):
    return lambda r: calls(("list_gg_parking_lots", {"SIGUN_CD": _code(r), "pIndex": 1, "pSize": size}))


def _ratio(request) -> Reply:
    (lots,) = last_tool_results(request)
    public = sum(int(r["PARKNG_COMPRT_PLANE_CNT"]) for r in lots["records"] if r["PARKPLC_DIV_NM"] == "공영")
    private = sum(int(r["PARKNG_COMPRT_PLANE_CNT"]) for r in lots["records"] if r["PARKPLC_DIV_NM"] == "민영")
    return text(f"\\boxed{{{public / private:.2f}}}")


# Each script: the replies of one episode, in turn order; the cause its episode must be given.
SCRIPTS: dict[str, list[tuple[str, list]]] = {
    POPULATION: [
        ("turn_limit", [calls(("get_current_date", {}))] * 4),
        ("no_tool_used", [text("용인시 인구는 월평균 \\boxed{1100000}명쯤입니다.")]),
        ("missing_key", [YONGIN, lambda r: calls(("get_gg_sigun_population", {"SIGUN_CD": _code(r)})),
                         text("\\boxed{1000}")]),
        ("budget_exceeded", [KEY, calls(*[("find_gg_sigun_code", {"SIGUN_NM": "용인시"})] * 10), text("\\boxed{1}")]),
        ("malformed_call", [KEY, calls(("find_gg_sigun_code", '{"SIGUN_NM": "용인시"')), text("찾지 못했습니다.")]),
        ("skipped_lookup", [KEY, calls(("get_gg_sigun_population", {"SIGUN_CD": "용인시"})), text("\\boxed{0}")]),
    ],
    PARKING: [
        ("wrong_tool", [KEY, YONGIN, lambda r: calls(("list_gg_public_toilets", {"SIGUN_CD": _code(r)})),
                        text("\\boxed{2.00}")]),
        ("wrong_arguments", [KEY, calls(("find_gg_sigun_code", {"SIGUN_NM": "수원시"})), _lots(1000), _ratio]),
        ("early_answer", [KEY, YONGIN, _lots(5), _ratio]),
        ("no_answer", [KEY, YONGIN, _lots(1000), Reply(content=None)]),
        ("wrong_answer", [KEY, YONGIN, _lots(1000), text("\\boxed{3.14}")]),
        ("passed", [KEY, YONGIN, _lots(1000), _ratio]),
    ],
}


class _Model:
    """Plays, for each (task, rollout), the script of that rollout: the rollout is read from the request's
    seed and the turn from the assistant messages so far, so the episodes' order does not matter."""

    def __init__(self) -> None:
        self.played: dict[tuple[str, int], str] = {}

    def __call__(self, request) -> Reply:
        question = request["messages"][1]["content"]
        task = POPULATION if "총인구" in question else PARKING
        rollout = request["seed"] % ROLLOUT_STRIDE
        cause, script = SCRIPTS[task][rollout]
        self.played[task, rollout] = cause
        turn = sum(m["role"] == "assistant" for m in request["messages"])
        step = script[min(turn, len(script) - 1)]
        return step(request) if callable(step) else step


def test_a_scripted_model_fails_each_way_once_and_the_report_names_each_cause(tmp_path):
    model = _Model()
    out = tmp_path / "run"
    requests = sum(len(s) for scripts in SCRIPTS.values() for _, s in scripts) + 4 - 1  # turn_limit: 4 turns
    with ChatServer([model] * requests) as server:
        done = CliRunner().invoke(main, ["bench", "run", "--policy", "openai", "--role",
                                         f"agent=fake-model@{server.base_url}", "--only", f"{POPULATION},{PARKING}",
                                         "-n", "6", "--workers", "1", "--max-turns", "4", "--llm-retries", "0",
                                         "--out", str(out)], prog_name="kopa")
    assert done.exit_code == 0, done.output
    assert server.errors == []
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    given = {(s["task_id"], s["rollout"]): s["failure_cause"] or "passed" for s in scores}
    assert given == model.played  # every episode the cause its script was written to produce
    report = (out / "report.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\w+) \| (\d+) \|$", report, flags=re.M))
    expected = {cause for scripts in SCRIPTS.values() for cause, _ in scripts} - {"passed"}
    assert {c: n for c, n in table.items() if c in expected} == dict.fromkeys(expected, "1")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["causes"] == dict.fromkeys(metrics["causes"], 1) and set(metrics["causes"]) == expected
