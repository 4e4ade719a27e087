"""APIGen offline on the simulator: the Table-1 counts against the verdicts they summarise, the four styles,
arguments from values the backend returned, each checker on planted bad samples, environmental failures
retried and never counted, the feedback loop, relevance data, resume and budget."""

from __future__ import annotations

import json
import re
import unicodedata

import numpy as np
import orjson
import pytest

from kopa.apigen.generator import TemplateGenerator
from kopa.apigen.record import XRecord, XTool, catalog_tool
from kopa.apigen.relevance import SHARE
from kopa.apigen.report import stage_table
from kopa.apigen.run import ApigenError, Item, generate_run, read_items, verify_record
from kopa.apigen.sampler import Prompt
from kopa.apigen.semantic import CRITERIA, DECIDES, RuleChecker
from kopa.apigen.values import ValueCache
from kopa.apigen.verify import format_check, issue_keys, read_record
from kopa.backends.spec import open_backend
from kopa.catalog import load_catalog
from kopa.korean.vocabulary import documented_name, param_label, value_phrase
from kopa.tools.runtime import ToolRuntime

CATALOG = load_catalog()
PLATFORMS = frozenset({"dart", "krx", "kdic"})
N = 50


def _generate(out, n: int = N, **kwargs) -> list[Item]:
    """The run's samples, as its chunks hold them (the run itself keeps none: it streams them to its files)."""
    generate_run(out, n, lambda cache, today: TemplateGenerator(cache, today), RuleChecker(CATALOG), CATALOG,
                 generator_name="template", platforms=PLATFORMS, **kwargs)
    return read_items(out)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("apigen")
    return out, _generate(out)


def _lines(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _runtime(spec: str = "sim") -> ToolRuntime:
    runtime = ToolRuntime(open_backend(spec), catalog=CATALOG)
    issue_keys(runtime, CATALOG)
    return runtime


def _record(query: str, tools: list[str], answers: list[dict]) -> tuple[XRecord | None, object]:
    return format_check(orjson.dumps({"query": query, "answers": answers}).decode(),
                        [catalog_tool(CATALOG[t]) for t in tools], record_id="t")


def _verify(query: str, tools: list[str], answers: list[dict], spec: str = "sim"):
    record, failed = _record(query, tools, answers)
    assert record is not None, failed
    return verify_record(record, _runtime(spec), CATALOG, RuleChecker(CATALOG))


# ------------------------------------------------------------------ the run folder

def test_the_table_counts_what_verdicts_jsonl_says(run):
    out, _items = run
    verdicts = _lines(out / "verdicts.jsonl")
    assert [v["id"] for v in verdicts] == [f"apigen-0-{i:06d}" for i in range(N)]
    assert all(set(v) >= {"id", "passed", "stage", "reason"} for v in verdicts)
    table = orjson.loads((out / "stats.json").read_bytes())["table"]
    counted = [v for v in verdicts if v["counted"]]
    assert table["verified"] == sum(v["passed"] for v in verdicts)
    for stage in ("format", "execution", "semantic"):
        assert table["fails"][stage] == sum(v["stage"] == stage for v in counted)
    assert table["verified"] + sum(table["fails"].values()) + table["not_counted_total"] == N
    assert table["pass_rate"] == pytest.approx(table["verified"] / len(counted))
    assert all((v["stage"] is None) == v["passed"] for v in verdicts)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert f"| **template** | {table['verified']} |" in report and "DeepSeek-V2-Chat" in report


def test_verified_jsonl_is_the_published_xlam_shape_with_notes_beside_it(run):
    out, _ = run
    verdicts = _lines(out / "verdicts.jsonl")
    rows = _lines(out / "verified.jsonl")
    notes = _lines(out / "verified.notes.jsonl")
    assert [r["id"] for r in rows] == [n["id"] for n in notes] == list(range(1, len(rows) + 1))
    assert [n["record"] for n in notes] == [v["id"] for v in verdicts if v["passed"]]
    for r, n in zip(rows, notes, strict=True):
        assert list(r) == ["id", "query", "answers", "tools"]  # the published row, key for key
        tools, answers = json.loads(r["tools"]), json.loads(r["answers"])
        names = {t["name"] for t in tools}
        assert all(a["name"] in names and isinstance(a["arguments"], dict) for a in answers)
        assert all(set(t) == {"name", "description", "parameters"} for t in tools)
        for doc in (d for t in tools for d in t["parameters"].values()):
            assert doc["type"] in ("str", "int", "float", "bool") or doc["type"].endswith(", optional")
            assert ("default" in doc) == doc["type"].endswith(", optional")  # an optional one says so twice
        assert n["provenance"]["backend"] == "sim" and len(n["provenance"]["results"]) == len(answers)
        assert n["verdicts"]["format"] == n["verdicts"]["execution"] == "pass"


def test_each_style_has_its_shape(run):
    _, items = run
    by_style: dict[str, list[XRecord]] = {}
    for i in items:
        if i.record is not None:
            by_style.setdefault(i.record.style or "", []).append(i.record)
    assert set(by_style) == {"simple", "multiple", "parallel", "parallel_multiple"}
    for r in by_style["simple"]:
        assert len(r.tools) == 1 and len(r.answers) == 1
    for r in by_style["multiple"]:
        assert len(r.tools) == 3 and len(r.answers) == 1
    for r in by_style["parallel"]:
        assert len(r.tools) == 1 and len(r.answers) >= 2
        assert len({orjson.dumps(a.arguments, option=orjson.OPT_SORT_KEYS) for a in r.answers}) == len(r.answers)
    for r in by_style["parallel_multiple"]:
        assert len({a.name for a in r.answers}) == 2 and len(r.answers) >= 3


def test_queries_ask_as_a_person_does(run):
    """No query quotes a tool's title or writes a day as YYYYMMDD; the asks vary; about half the samples call
    a documented endpoint (the rest the long tail, nine of ten tools)."""
    _, items = run
    records = [i.record for i in items if i.record is not None]
    for r in records:
        for call in r.answers:
            assert CATALOG[call.name].spec.title not in r.query, (call.name, r.query)
        assert not re.search(r"(?<!\d)(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?!\d)", r.query), r.query
    endings = {re.sub(r"^.*[가-힣]{2}[을를이가은는]? ", "", r.query.split(". ")[-1]) for r in records}
    assert len(endings) >= 4, endings  # several shapes, not one template
    real = sum(any(CATALOG[c.name].spec.real for c in r.answers) for r in records)
    assert real >= 0.35 * len(records), (real, len(records))


def test_a_filter_the_query_adds_is_one_a_person_states(run):
    """An optional argument is a name, a date or an enum's meaning — never a code with its label ("시군코드
    41820인"), which a person asking does not have; a code stays only where the API takes nothing else
    (a required parameter), and one its docs name is stated by that name."""
    _, items = run
    optional = 0
    for r in (i.record for i in items if i.record is not None):
        for call in r.answers:
            for name, value in call.arguments.items():
                p = CATALOG[call.name].spec.param(name)
                if p.required or (p.default is not None and str(p.default) == str(value)):
                    continue
                optional += 1
                said = value_phrase(p, value) or documented_name(p, value)
                assert said is not None and said in r.query, (call.name, name, value, r.query)
    assert optional >= 5


def test_queries_are_korean_and_arguments_come_from_what_the_backend_returned(run):
    out, items = run
    cache = ValueCache.model_validate_json((out / "values.json").read_bytes())
    day = "20260130"  # the simulator's virtual today (sim's default world)
    assert _runtime().state.current_date.replace("-", "") == day
    for i in items:
        if i.record is None:
            continue
        assert re.search(r"[가-힣]", i.record.query) and unicodedata.is_normalized("NFC", i.record.query)
        for call in i.record.answers:
            for name, value in call.arguments.items():
                p = CATALOG[call.name].spec.param(name)
                returned = set(cache.values.get(name, [])) | set(cache.own.get(call.name, {}).get(name, []))
                allowed = returned | set(p.enum or []) | {day, day[:6], str(int(day[:4]) - 1)}
                assert str(value) in allowed, (call.name, name, value)


def test_values_json_holds_what_a_probe_call_returns():
    """The cache is the backend's own answers: re-run the probe of one answered tool and find its values."""
    from kopa.apigen.values import build_cache

    runtime = _runtime()
    tool = CATALOG["find_assembly_member"]
    cache = build_cache([tool], runtime, seed=0)
    direct = runtime.call("find_assembly_member", {})
    assert cache.answered == ["find_assembly_member"] and cache.calls == 1
    assert cache.values["HG_NM"] == [r["HG_NM"] for r in direct.records[:5]]


def test_no_query_states_an_internal_id(run):
    """No person types a system's ID: a DART 고유번호, a 의안ID, a school's 행정표준코드 is never stated, and a tool
    that takes only one (DART's reports on a corp_code) is not drawn; no query puts a field's label before a
    name ('시군명 가평군인')."""
    _out, items = run
    records = [i.record for i in items if i.record is not None]
    assert records
    for r in records:
        assert not re.search(r"고유번호 \d|의안ID|PRC_|행정표준코드|코드 \d", r.query), r.query
        for call in r.answers:
            assert "corp_code" not in call.arguments, (call.name, r.query)
        for m in r.provenance["mentions"]:
            p = CATALOG[r.answers[m["call"]].name].spec.param(m["param"])
            assert f"{param_label(p)} {m['value']}" not in r.query, r.query


# ------------------------------------------------------------------ stage 1 on planted samples

GOOD = [{"name": "find_dart_corp_code", "arguments": {"corp_name": "삼한전자"}}]


@pytest.mark.parametrize(("raw", "reason"), [
    ('{"query": "삼한전자 고유번호", "answers": [', "unparseable_json"),
    ('{"answers": []}', "missing_field"),
    ('{"query": "삼한전자 고유번호", "answers": []}', "no_calls"),
    ('{"query": "삼한전자 고유번호", "answers": [{"name": "dart.find_company", "arguments": {}}]}',
     "hallucinated_function"),
    ('{"query": "삼한전자 고유번호", "answers": [{"name": "find_dart_corp_code", "arguments": {"company": "삼한전자"}}]}',
     "unknown_argument"),
    ('{"query": "삼한전자 공시", "answers": [{"name": "search_dart_disclosures", "arguments": {"page_no": "둘째"}}]}',
     "wrong_type"),
    ('{"query": "삼한전자 고유번호", "answers": [{"name": "find_dart_corp_code", "arguments": {"corp_name": ["a"]}}]}',
     "wrong_type"),
    ('{"query": "삼한전자 고유번호", "answers": [{"name": "find_dart_corp_code", "arguments": {}}]}',
     "missing_required_argument"),
])
def test_the_format_checker_rejects_each_planted_defect_with_its_code(raw, reason):
    library = [catalog_tool(CATALOG["find_dart_corp_code"]), catalog_tool(CATALOG["search_dart_disclosures"])]
    record, verdict = format_check(raw, library, record_id="x")
    assert record is None and verdict is not None
    assert (verdict.stage, verdict.reason, verdict.counted) == ("format", reason, True)


def test_the_format_checker_passes_a_good_sample():
    record, verdict = _record("삼한전자의 고유번호를 찾아 주세요.", ["find_dart_corp_code"], GOOD)
    assert verdict is None and record is not None and record.answers[0].arguments == {"corp_name": "삼한전자"}


# ------------------------------------------------------------------ stage 2

def test_the_execution_checker_classifies_a_value_the_service_refuses():
    verdict, outcomes = _verify("고유번호 12345 회사의 기업개황", ["get_dart_company_overview"],
                                [{"name": "get_dart_company_overview", "arguments": {"corp_code": "12345"}}])
    assert (verdict.stage, verdict.reason, verdict.counted) == ("execution", "invalid_parameter", True)
    assert outcomes[0].error_class == "structural"


def test_an_argument_the_record_calls_optional_but_the_service_requires_fails_on_execution():
    """A third party's spec marks corp_code optional: format passes the call without it, the runtime refuses."""
    tool = catalog_tool(CATALOG["get_dart_company_overview"])
    params = {**tool.parameters, "corp_code": tool.parameters["corp_code"].model_copy(update={"required": False})}
    library = [XTool(name=tool.name, description=tool.description, parameters=params)]
    record, failed = format_check(orjson.dumps({"query": "삼한전자의 기업개황", "answers": [
        {"name": tool.name, "arguments": {}}]}).decode(), library, record_id="t")
    assert failed is None and record is not None
    verdict, outcomes = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert (verdict.stage, verdict.reason, verdict.counted) == ("execution", "missing_required_argument", True)
    assert outcomes[0].error_class == "structural"


def test_a_generated_call_sends_every_required_argument_its_spec_lists():
    """Seoul's row window is required with a default: the generated call states it, so the row's own spec
    (int, not optional) and kopa's call matcher both accept the answer."""
    generator = TemplateGenerator(ValueCache(), "2026-01-30")
    tool = CATALOG["list_seoul_bike_stations"]
    prompt = Prompt(style="simple", context="plain", difficulty="easy", tools=[tool.name])
    made = json.loads(generator.generate(prompt, [tool], [], np.random.default_rng(0)).raw)
    args = made["answers"][0]["arguments"]
    assert args == {"START_INDEX": 1, "END_INDEX": 100}
    spec = catalog_tool(tool)
    assert {name for name, p in spec.parameters.items() if p.required} <= set(args)


@pytest.mark.parametrize("day", ["20261345", "20250229"])
def test_an_impossible_date_fails_on_execution_with_the_services_invalid_parameter_answer(day):
    """KRX answers a date that is not on the calendar as it answers a malformed one (400), so stage 2 rejects
    it; before, the simulator read 20261345 as 'after every listing' and returned the whole market."""
    query = f"{day[:4]}년 {int(day[4:6])}월 {int(day[6:])}일 기준 유가증권시장 상장 종목 기본정보를 알려 주세요."
    verdict, outcomes = _verify(query, ["get_krx_kospi_issue_base_info"],
                                [{"name": "get_krx_kospi_issue_base_info", "arguments": {"basDd": day}}])
    assert (verdict.stage, verdict.reason, verdict.counted) == ("execution", "invalid_parameter", True)
    assert outcomes[0].error_class == "structural"


def test_a_type_the_record_documents_wrongly_fails_as_a_type_error_on_execution():
    """The record says numOfRows is text (a third party's doc error): format passes, the runtime refuses."""
    tool = catalog_tool(CATALOG["get_stock_price_trend"])
    params = {**tool.parameters, "numOfRows": tool.parameters["numOfRows"].model_copy(update={"type": "string"})}
    library = [XTool(name=tool.name, description=tool.description, parameters=params)]
    record, failed = format_check(orjson.dumps({"query": "브이화학 시세 열 건", "answers": [
        {"name": tool.name, "arguments": {"itmsNm": "브이화학", "numOfRows": "열"}}]}).decode(), library, record_id="t")
    assert failed is None and record is not None
    verdict, _ = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert (verdict.stage, verdict.reason) == ("execution", "type_error")


def test_a_key_the_record_passes_is_left_to_the_runtime():
    """A converted record may document and pass the service key; the runtime fills the key itself."""
    tool = catalog_tool(CATALOG["find_dart_corp_code"])
    params = {**tool.parameters, "crtfc_key": tool.parameters["corp_name"].model_copy(update={"required": False})}
    library = [XTool(name=tool.name, description=tool.description, parameters=params)]
    record, failed = format_check(orjson.dumps({"query": "삼한전자의 고유번호", "answers": [
        {"name": tool.name, "arguments": {"corp_name": "삼한전자", "crtfc_key": "MY-OWN-KEY"}}]}).decode(), library,
        record_id="k")
    assert failed is None and record is not None
    verdict, outcomes = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert verdict.passed and outcomes[0].arguments == {"corp_name": "삼한전자"}


def test_a_parameter_the_record_invents_for_a_catalog_tool_fails_on_execution():
    tool = catalog_tool(CATALOG["find_dart_corp_code"])
    params = {**tool.parameters, "market": tool.parameters["corp_name"].model_copy(update={"required": False})}
    library = [XTool(name=tool.name, description=tool.description, parameters=params)]
    record, failed = format_check(orjson.dumps({"query": "코스피 삼한전자 고유번호", "answers": [
        {"name": tool.name, "arguments": {"corp_name": "삼한전자", "market": "코스피"}}]}).decode(), library,
        record_id="m")
    assert failed is None and record is not None
    verdict, _ = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert (verdict.stage, verdict.reason) == ("execution", "unknown_argument")


def test_a_tool_outside_the_catalog_is_not_executable():
    library = [XTool(name="weather_api.get_current_weather", parameters={})]
    record, _ = format_check('{"query": "파리 날씨", "answers": [{"name": "weather_api.get_current_weather"}]}',
                             library, record_id="w")
    assert record is not None
    verdict, _ = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert (verdict.stage, verdict.reason, verdict.counted) == ("execution", "not_executable", True)


def test_an_environmental_failure_is_retried_and_never_counted_as_a_bad_sample(tmp_path):
    always = tmp_path / "always.toml"
    always.write_text('description = "dart always rate-limited"\n\n[platforms.dart]\nrate_limit = 1.0\n',
                      encoding="utf-8")
    verdict, outcomes = _verify("삼한전자의 고유번호를 찾아 주세요.", ["find_dart_corp_code"], GOOD,
                                spec=f"faults:{always}@sim")
    assert (verdict.stage, verdict.reason, verdict.counted) == ("execution", "environmental:rate_limit", False)
    assert outcomes[0].attempts == 5  # the runtime's retry policy: five attempts before giving up
    table = stage_table([Item(index=0, verdict=verdict)])
    assert table["fails"] == {"format": 0, "execution": 0, "semantic": 0}
    assert table["not_counted"] == {"environmental:rate_limit": 1}

    half = tmp_path / "half.toml"
    half.write_text('description = "dart half rate-limited"\n\n[platforms.dart]\nrate_limit = 0.5\n',
                    encoding="utf-8")
    runtime = _runtime(f"faults:{half}@sim")
    codes = ["00105359", "00139943", "00241119", "00396333", "00507034", "00532292", "00126391", "00421341"]
    results = []
    for code in codes:  # distinct requests: a fault decision is a function of the request and the attempt
        record, _ = _record(f"고유번호 {code}인 회사의 기업개황을 알려 주세요.", ["get_dart_company_overview"],
                            [{"name": "get_dart_company_overview", "arguments": {"corp_code": code}}])
        assert record is not None
        results.append(verify_record(record, runtime, CATALOG, RuleChecker(CATALOG)))
    retried = [v for v, outs in results if any(o.attempts > 1 and o.ok for o in outs)]
    assert retried, "no call met a rate limit at 50%: the fault profile did not apply"
    assert all(v.passed and v.retried_calls >= 1 for v in retried)
    assert not any(v.counted and v.reason and v.reason.startswith("environmental") for v, _ in results)


# ------------------------------------------------------------------ stage 3

@pytest.mark.parametrize(("query", "tools", "answers", "reason"), [
    ("홍길동 의원의 인적사항을 알려 주세요.", ["find_assembly_member"],
     [{"name": "find_assembly_member", "arguments": {"HG_NM": "홍길동"}}], "empty_result"),
    ("고유번호 00105359인 회사의 기업개황을 알려 주세요.", ["get_dart_company_overview"],
     [{"name": "get_dart_company_overview", "arguments": {"corp_code": "00139943"}}], "ungrounded_argument"),
    ("강도옥 의원의 SNS정보를 알려 주세요.", ["get_assembly_member_sns", "get_assembly_member_career"],
     [{"name": "get_assembly_member_career", "arguments": {"HG_NM": "강도옥"}}], "wrong_function"),
    ("해솔시스템 주식 시세를 알려 주세요.", ["get_stock_price_trend"],
     [{"name": "get_stock_price_trend", "arguments": {"itmsNm": "해솔시스템"}}] * 2, "duplicate_call"),
    # a year after the world's today (2026-01-30): nothing is listed as of a day that has not come
    ("2027년 1월 29일 기준 유가증권시장 상장 종목 기본정보를 알려 주세요.", ["get_krx_kospi_issue_base_info"],
     [{"name": "get_krx_kospi_issue_base_info", "arguments": {"basDd": "20270129"}}], "empty_result"),
])
def test_the_rule_checker_rejects_results_that_do_not_answer_the_query(query, tools, answers, reason):
    verdict, _ = _verify(query, tools, answers)
    assert (verdict.stage, verdict.reason) == ("semantic", reason)


def test_too_few_calls_for_the_values_a_query_lists_is_caught():
    """'A와 B' / 'A, B' where a call asks about A only: B is a value of the same parameter by its documented
    pattern (an 8-digit 고유번호), so the sample is one call short."""
    one = [{"name": "get_dart_company_overview", "arguments": {"corp_code": "00105359"}}]
    two = [*one, {"name": "get_dart_company_overview", "arguments": {"corp_code": "00139943"}}]
    for query in ("고유번호 00105359와 00139943인 회사의 기업개황을 알려 주세요.",
                  "고유번호 00139943, 00105359인 회사들의 기업개황을 알려 주세요."):
        verdict, _ = _verify(query, ["get_dart_company_overview"], one)
        assert (verdict.stage, verdict.reason) == ("semantic", "too_few_calls"), verdict
        assert "'00139943'" in verdict.detail
        assert _verify(query, ["get_dart_company_overview"], two)[0].passed
    # a word beside the value is no second value: 'A와 관련된' asks about A alone
    assert _verify("고유번호 00105359와 관련된 회사의 기업개황을 알려 주세요.", ["get_dart_company_overview"], one)[0].passed


MEMBERS = {"HG_NM": ["강도옥", "강명순", "강빈지"], "SIGUN_NM": ["가평군", "고양시", "수원시"]}
SNS, CAREER, MERCHANTS = "get_assembly_member_sns", "get_assembly_member_career", "search_gg_local_currency_merchants"


def _sns(name: str) -> dict:
    return {"name": SNS, "arguments": {"HG_NM": name}}


@pytest.mark.parametrize(("query", "tools", "partial", "full"), [
    # three named things, the third said apart from the list: two calls serve two of them
    ("강도옥 의원과 강명순 의원의 SNS 정보를 알려 주시고, 강빈지 의원 것도 부탁해요.", [SNS],
     [_sns("강도옥"), _sns("강명순")], [_sns("강도옥"), _sns("강명순"), _sns("강빈지")]),
    # two named things, each with its own phrase ('가평군의 …과 고양시의 …'): no list for `too_few_calls` to read
    ("가평군의 경기지역화폐 가맹점과 고양시의 경기지역화폐 가맹점을 알려 주세요.", [MERCHANTS],
     [{"name": MERCHANTS, "arguments": {"SIGUN_NM": "가평군"}}],
     [{"name": MERCHANTS, "arguments": {"SIGUN_NM": "가평군"}}, {"name": MERCHANTS, "arguments": {"SIGUN_NM": "고양시"}}]),
    # two different facts of one person: the offered career tool answers the second, and no call uses it
    ("강도옥 의원의 SNS 정보와 의원 이력을 함께 알려 주세요.", [SNS, CAREER],
     [_sns("강도옥")], [_sns("강도옥"), {"name": CAREER, "arguments": {"HG_NM": "강도옥"}}]),
])
def test_calls_that_serve_only_part_of_the_query_fail_as_a_partial_answer(query, tools, partial, full):
    """The planted partial samples fail stage 3 as `partial_answer` (call_count), naming what is left unserved;
    the same query with every call it needs passes."""
    checker = RuleChecker(CATALOG, MEMBERS)
    record, failed = _record(query, tools, partial)
    assert record is not None, failed
    verdict = verify_record(record, _runtime(), CATALOG, checker)[0]
    assert (verdict.stage, verdict.reason, verdict.criteria["call_count"]) == ("semantic", "partial_answer", "fail")
    assert "no call" in verdict.detail, verdict.detail
    whole, failed = _record(query, tools, full)
    assert whole is not None, failed
    assert verify_record(whole, _runtime(), CATALOG, checker)[0].passed


def test_a_name_that_qualifies_an_asked_one_or_names_what_is_asked_is_no_partial_answer():
    """'경기도 가평군의 …' states 경기도 before the asked 가평군 (where it qualifies it), and a called tool's own
    name says '경기도': neither is a second ask; '고유번호 00241119' is the asked code with its label."""
    checker = RuleChecker(CATALOG, {**MEMBERS, "SIGUN_NM": [*MEMBERS["SIGUN_NM"], "경기도"]})
    for query, tools, calls in [
        ("경기도 가평군의 지역화폐 가맹점을 알려 주세요.", [MERCHANTS],
         [{"name": MERCHANTS, "arguments": {"SIGUN_NM": "가평군"}}]),
        ("고유번호 00241119 회사의 대표자와 주소가 궁금합니다.", ["get_dart_company_overview", "find_dart_corp_code"],
         [{"name": "get_dart_company_overview", "arguments": {"corp_code": "00241119"}}]),
    ]:
        record, failed = _record(query, tools, calls)
        assert record is not None, failed
        verdict = verify_record(record, _runtime(), CATALOG, checker)[0]
        assert verdict.criteria["call_count"] == "pass", verdict


def test_a_listed_name_of_several_words_is_read_whole_at_either_end():
    """'포항시 남구, 서초구': the item read before 서초구 is '남구' (from the space), the last word of the name the
    first call asks about — not a third value left without its call."""
    tool = "get_molit_vehicle_inspection_centers_yearly"
    calls = [{"name": tool, "arguments": {"signguNm": "포항시 남구"}}, {"name": tool, "arguments": {"signguNm": "서초구"}}]
    record, failed = _record("포항시 남구, 서초구의 자동차 검사소는 어떻게 되나요?", [tool], calls)
    assert record is not None, failed
    seen = {"signguNm": ["포항시 남구", "서초구", "남구"]}
    assert RuleChecker(CATALOG, seen).check(record, []).criteria["call_count"] == "pass"


def test_no_opener_states_a_value_the_service_returned(run):
    """An opener is background ('취재 자료를 모으고 있습니다'), never a value a call could ask about ('기사' is a
    qualification, '구청' an institution): the partial-answer rule would read it as an ask left unserved."""
    from kopa.apigen.asks import OPENERS
    from kopa.apigen.semantic import _phrases

    out, _ = run
    seen = {v for values in ValueCache.model_validate_json((out / "values.json").read_bytes()).seen().values()
            for v in values}
    said = {line: [t for _, _, t in _phrases(line) if t in seen] for lines in OPENERS.values() for line in lines}
    assert not any(said.values()), {k: v for k, v in said.items() if v}


def test_a_sample_of_two_tools_asks_both_about_the_same_subjects(run):
    """A sample of two tools is one information need ('대양바이오, 태영백산로직스의 기업 개요와 배당 내역'): each
    tool is called once for each of the same subjects, the query states each subject once, and the rules pass
    its call count with the value cache's names. Dropping one tool's calls leaves every stated value asked
    about, and the asks are said as a person says them, not as the catalog names the tables ('배당 내역', not
    '배당 정보 상세'), so the bigram rule on the tools' names misses it: the rules read what the offered tool is
    asked in a person's words (`kopa.apigen.asks`) and fail it as a partial answer."""
    out, items = run
    cache = ValueCache.model_validate_json((out / "values.json").read_bytes())
    checker = RuleChecker(CATALOG, cache.seen(), cache.named)
    book = TemplateGenerator(cache, "2026-01-30").book
    two = [i.record for i in items if i.verdict.passed and i.record and len({c.name for c in i.record.answers}) == 2]
    assert two, "no verified sample of two tools in the run"
    for r in two:
        asked: dict[str, list[str]] = {}
        for call in r.answers:
            subject = book.subject(CATALOG[call.name])
            assert subject is not None, call.name
            asked.setdefault(call.name, []).append(str(call.arguments[subject.name]))
        first, second = asked.values()
        assert first == second and len(set(first)) == len(first) >= 2, r.query
        assert all(r.query.count(v if not v.isdigit() else f"의안번호 {v}") == 1 for v in first), r.query
        assert not re.search(r"두 가지|하나는|각각의", r.query), r.query
        assert checker.check(r, []).criteria["call_count"] == "pass", r.query
    for r in two:
        for dropped in dict.fromkeys(c.name for c in r.answers):
            partial = r.model_copy(update={"answers": [c for c in r.answers if c.name != dropped]})
            verdict = checker.check(partial, [])
            assert verdict.reason in ("partial_answer", "wrong_function"), (r.query, dropped, verdict)
            assert verdict.criteria["call_count"] == "fail", (r.query, dropped, verdict)


def test_names_count_as_listed_values_where_the_value_cache_saw_them():
    """A name has no pattern: the rules know it only from the value cache (APIGen's own runs pass theirs)."""
    record, _ = _record("강도옥과 홍길동 의원의 SNS정보를 알려 주세요.", ["get_assembly_member_sns"],
                        [{"name": "get_assembly_member_sns", "arguments": {"HG_NM": "강도옥"}}])
    assert record is not None
    blind = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))[0]
    knowing = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG, {"HG_NM": ["강도옥", "홍길동"]}))[0]
    assert blind.criteria["call_count"] == "pass"
    assert (knowing.stage, knowing.reason) == ("semantic", "too_few_calls")


def test_a_code_its_docs_name_is_grounded_by_that_name_and_no_other():
    """'서울특별시교육청' in the query grounds ATPT_OFCDC_SC_CODE=B10: the parameter's docs say B10 is that office, so
    a model reading them maps it back. The name of another office grounds nothing."""
    call = [{"name": "search_neis_academies", "arguments": {"ATPT_OFCDC_SC_CODE": "B10"}}]
    assert _verify("서울특별시교육청 관할 학원을 알려 주세요.", ["search_neis_academies"], call)[0].passed
    wrong, _ = _verify("경기도교육청 관할 학원을 알려 주세요.", ["search_neis_academies"], call)
    assert (wrong.stage, wrong.criteria["objective"]) == ("semantic", "fail"), wrong


def test_a_listed_name_of_several_words_is_read_whole():
    """'소방기본법, 유료도로법 시행령': the item read beside 소방기본법 is '유료도로법' (up to the space), the first word
    of the name the second call asks about — not a third value left without its call."""
    tool = "list_moleg_regulations_list"
    seen = {"lawNm": ["소방기본법", "유료도로법", "유료도로법 시행령"]}
    both = [{"name": tool, "arguments": {"lawNm": "소방기본법"}}, {"name": tool, "arguments": {"lawNm": "유료도로법 시행령"}}]
    record, _ = _record("소방기본법, 유료도로법 시행령 각각의 규제를 알려 주세요.", [tool], both)
    assert record is not None
    verdict = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG, seen))[0]
    assert verdict.criteria["call_count"] == "pass", verdict
    short, _ = _record("소방기본법, 유료도로법 각각의 규제를 알려 주세요.", [tool], both[:1])
    assert short is not None
    verdict = verify_record(short, _runtime(), CATALOG, RuleChecker(CATALOG, seen))[0]
    assert (verdict.stage, verdict.reason) == ("semantic", "too_few_calls"), verdict


def test_the_rule_checker_passes_a_good_sample_and_says_what_it_decides():
    verdict, outcomes = _verify("강도옥 의원의 SNS정보를 알려 주세요.",
                                ["get_assembly_member_sns", "get_assembly_member_career"],
                                [{"name": "get_assembly_member_sns", "arguments": {"HG_NM": "강도옥"}}])
    assert verdict.passed and outcomes[0].records >= 1
    assert set(verdict.criteria) == set(CRITERIA) == set(DECIDES)
    assert set(verdict.criteria.values()) <= {"pass", "undecided"}


def test_a_relevance_record_with_no_call_passes_without_executing():
    record = XRecord(id="r", query="오늘 날씨 어때?", tools=[catalog_tool(CATALOG["find_dart_corp_code"])], answers=[],
                     provenance={"relevance": "no_call"})
    verdict, outcomes = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert verdict.passed and outcomes == []


def test_a_no_call_label_on_a_query_an_offered_tool_serves_is_caught():
    """The called tool taken away leaves its yearly edition, which the query names as clearly: "no call" is
    false. The same tools under a refusal (the query lacks a required value) keep that tool on purpose."""
    tools = [catalog_tool(CATALOG[n]) for n in ("get_moleg_legal_terms_yearly", "get_moleg_law_annexes_yearly")]
    record = XRecord(id="r", query="특허법의 법령 별표 서식을 찾아 줄 수 있나요?", tools=tools, answers=[],
                     provenance={"relevance": "no_call"})
    verdict, _ = verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))
    assert (verdict.stage, verdict.reason) == ("semantic", "tool_serves_query"), verdict
    assert "get_moleg_law_annexes_yearly" in verdict.detail
    refusal = record.model_copy(update={"provenance": {"relevance": "refusal"}})
    assert verify_record(refusal, _runtime(), CATALOG, RuleChecker(CATALOG))[0].passed


# ------------------------------------------------------------------ the loop, relevance, resume, budget

def test_verified_samples_feed_back_as_examples_of_later_chunks(run):
    _out, items = run
    assert all(not i.prompt["examples"] for i in items[:25])
    verified_first = {i.record.id: i.record.style for i in items[:25] if i.verdict.passed and i.record}
    later = [i for i in items[25:] if i.prompt["examples"]]
    assert later, "no prompt of the second chunk took an example"
    for i in later:
        assert all(verified_first.get(e) == i.prompt["style"] for e in i.prompt["examples"])


def test_relevance_samples_remove_what_the_answer_needs(run):
    out, items = run
    verified = sum(i.verdict.passed for i in items)
    rows = _lines(out / "relevance.jsonl")
    notes = _lines(out / "relevance.notes.jsonl")
    assert len(rows) == len(notes) == round(verified * SHARE) and rows
    by_id = {i.record.id: i.record for i in items if i.record is not None}
    for r, n in zip(rows, notes, strict=True):
        source = by_id[n["provenance"]["source"]]
        assert r["answers"] == "[]" and n["provenance"]["relevance"] in ("no_call", "refusal")
        if n["provenance"]["construction"] == "drop_tool":
            # no tool the source's answer called is left: none of what is offered serves any part of it
            offered = {t["name"] for t in json.loads(r["tools"])}
            assert not offered & {a.name for a in source.answers} and offered
            assert set(n["provenance"]["removed"].split(",")) == {a.name for a in source.answers}
            assert r["query"] == source.query
            record, _ = read_record({**r, "provenance": n["provenance"]}, 0)  # what `kopa apigen verify` reads
            assert record is not None and verify_record(record, _runtime(), CATALOG, RuleChecker(CATALOG))[0].passed
        else:
            value = n["provenance"]["removed"].split("=", 1)[1]
            # the phrase that states the value (an enum by its meaning: OFS as "개별 재무제표인") goes whole:
            # the rest still asks, never "기준일자가 인"
            said = next(m for m in source.provenance["mentions"] if str(m["value"]) == value)
            assert said["phrase"] in source.query and said["phrase"] not in r["query"] and value not in r["query"]
            assert r["query"] == re.sub(r"\s{2,}", " ", source.query.replace(said["phrase"], "")).strip()
            assert r["query"].endswith(("요.", "요?", "까?")) and " 인 " not in r["query"]


def test_an_interrupted_run_resumes_to_the_same_bytes(run, tmp_path):
    out, _ = run
    _generate(tmp_path, stop_after_chunks=1)
    assert len(read_items(tmp_path)) == 25
    _generate(tmp_path)
    for name in ("verdicts.jsonl", "verified.jsonl", "verified.notes.jsonl", "relevance.jsonl", "stats.json",
                 "values.json"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name
    with pytest.raises(ApigenError, match="seed"):
        _generate(tmp_path, seed=1)


def test_the_files_written_as_samples_are_decided_are_those_of_the_whole_list(run):
    """The run writes its files chunk by chunk and keeps none of its samples; what it wrote is what the whole
    list of samples gives, read back from parts/ — verdicts line by line, the verified rows numbered 1…n with
    their notes, the relevance rows the first of those the verified ones give — and no partial file is left."""
    from kopa.apigen.record import xlam_row
    from kopa.apigen.relevance import relevance_samples
    from kopa.apigen.semantic import serving_tool

    out, items = run
    verdicts = [orjson.dumps(i.verdict.model_dump(include={"id", "passed", "stage", "reason", "counted", "detail",
                                                            "retried_calls", "criteria"})) + b"\n" for i in items]
    assert (out / "verdicts.jsonl").read_bytes() == b"".join(verdicts)
    verified = [i.record for i in items if i.verdict.passed and i.record is not None]
    rows = _lines(out / "verified.jsonl")
    assert rows == [orjson.loads(orjson.dumps(xlam_row(r, k))) for k, r in enumerate(verified, 1)]
    required = {t.name: {p.name for p in t.spec.params if p.required} for t in CATALOG}
    relevance = relevance_samples([r for r in verified if r.answers], 0, required,
                                  lambda r: serving_tool(r, CATALOG) is not None)
    assert [r["query"] for r in _lines(out / "relevance.jsonl")] == [r.query for r in relevance]
    assert [n["record"] for n in _lines(out / "relevance.notes.jsonl")] == [r.id for r in relevance]
    assert not list(out.glob("*.partial")) and not list(out.glob("*.tmp"))
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert stats["table"] == stage_table(items) and stats["relevance"] == len(relevance)


def test_the_budget_stops_generation(run, tmp_path):
    out, _ = run
    probe = ValueCache.model_validate_json((out / "values.json").read_bytes()).calls
    (tmp_path / "values.json").write_bytes((out / "values.json").read_bytes())  # the same probe, not re-run
    items = _generate(tmp_path, budget=probe + 10)
    spent = sum(i.calls for i in items)
    assert len(items) < N and spent >= 10
    assert spent - items[-1].calls < 10  # the last sample was started before the budget ran out
    assert orjson.loads((tmp_path / "stats.json").read_bytes())["calls"] == probe + spent
    (tmp_path / "small").mkdir()
    (tmp_path / "small" / "values.json").write_bytes((out / "values.json").read_bytes())
    with pytest.raises(ApigenError, match="whole budget"):
        _generate(tmp_path / "small", budget=probe)


def test_a_value_is_removed_only_where_its_phrase_was_recorded():
    """"2026년 1월 30일 기준 삼성전자의 주식 시세" loses the phrase that states the stock and keeps a question; a
    bare value in running text is not cut out (it left "기준일자가 인 …"), nor one of listed values."""
    from kopa.apigen.record import XCall
    from kopa.apigen.relevance import _drop_value
    from kopa.rng import stream

    call = XCall(name="get_stock_price_trend", arguments={"itmsNm": "삼성전자", "basDt": "20260130"})
    said = [{"call": 0, "param": "itmsNm", "value": "삼성전자", "phrase": "삼성전자의"},
            {"call": 0, "param": "basDt", "value": "20260130", "phrase": "2026년 1월 30일 기준"}]
    record = XRecord(id="r", query="2026년 1월 30일 기준 삼성전자의 주식 시세를 알려 주세요.", tools=[],
                     answers=[call], provenance={"mentions": said})
    required = {"get_stock_price_trend": {"itmsNm"}}
    made = [_drop_value(record, stream(0, "t", str(i)), required) for i in range(8)]
    assert {m.query for m in made if m is not None} == {"2026년 1월 30일 기준 주식 시세를 알려 주세요."}
    bare = record.model_copy(update={"provenance": {"mentions": []}})
    assert all(_drop_value(bare, stream(0, "t", str(i)), required) is None for i in range(8))
    two = [call, call.model_copy(update={"arguments": {"itmsNm": "현대차", "basDt": "20260130"}})]
    listed = record.model_copy(update={"query": "삼성전자와 현대차 각각의 주식 시세를 알려 주세요.", "answers": two,
                                       "provenance": {"mentions": [
                                           {"call": 0, "param": "itmsNm", "value": "삼성전자", "phrase": "삼성전자"},
                                           {"call": 1, "param": "itmsNm", "value": "현대차", "phrase": "현대차"}]}})
    assert all(_drop_value(listed, stream(0, "t", str(i)), required) is None for i in range(8))


def test_a_query_verified_before_fails_the_second_time_as_a_duplicate(tmp_path):
    """Two verified samples asking the same question word for word (spaces aside): the first is kept, the second
    fails `duplicate_query` and is neither a row nor counted as verified; a different question passes."""
    from kopa.apigen.run import Outputs
    from kopa.apigen.verify import Verdict

    tool = catalog_tool(CATALOG["find_dart_corp_code"])

    def item(index: int, query: str) -> Item:
        record = XRecord(id=f"r{index}", query=query, tools=[tool],
                         answers=[{"name": "find_dart_corp_code", "arguments": {"corp_name": "라이트론"}}])
        return Item(index=index, verdict=Verdict(id=f"r{index}", passed=True), record=record)

    outputs = Outputs(tmp_path, CATALOG, 0, {"generator": "test", "checker": "rules", "backend": "sim"}, most=3)
    decided = outputs.add([item(0, "라이트론의 고유번호를 알려 주세요."), item(1, "라이트론의  고유번호를 알려 주세요. "),
                           item(2, "라이트론의 대표이사는 누구인가요?")])
    assert [(i.verdict.passed, i.verdict.reason) for i in decided] == [(True, None), (False, "duplicate_query"),
                                                                       (True, None)]
    tally = outputs.finish()
    assert tally.verified == 2
    assert len(_lines(tmp_path / "verified.jsonl")) == 2
