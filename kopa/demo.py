"""The README's main job until the benchmark lands: multi-step lookup chains across platforms, each
step's output feeding the next, printed step by step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from kopa.backends.base import Backend
from kopa.tools.accounting import FaultAccount
from kopa.tools.results import ToolResult
from kopa.tools.runtime import ToolRuntime

Results = list[ToolResult]


@dataclass(frozen=True)
class Step:
    tool: str
    args: Callable[[Results], dict[str, Any]]
    why: str


@dataclass(frozen=True)
class Chain:
    domain: str
    question: str
    platforms: tuple[str, ...]
    steps: tuple[Step, ...]
    answer: Callable[[Results], str]


def first(results: Results, step: int, field: str) -> str:
    return str(results[step].records[0][field])


def _num(text: str) -> str:
    return text.replace(",", "")


def _yesterday_close(results: Results) -> str:
    return _num(first(results, 3, "clpr"))


FINANCE = Chain(
    domain="finance",
    question="2026년 1월 라이트론이 발행한 전환사채 기준, 어제 종가가 리픽싱 최저가와 몇 % 차이나는가?",
    platforms=("dart", "krx"),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "dart"}, "DART 인증키 발급"),
        Step("issue_api_key", lambda r: {"platform": "krx"}, "주식시세(공공데이터포털) 인증키 발급"),
        Step("find_dart_corp_code", lambda r: {"corp_name": "라이트론"}, "회사명 → 고유번호(corp_code)"),
        Step("get_dart_convertible_bond_issuance_decision",
             lambda r: {"corp_code": first(r, 2, "corp_code"), "bgn_de": "20260101", "end_de": "20260131"},
             "corp_code → 전환사채 발행결정 (최저 조정가액)"),
        Step("get_current_date", lambda r: {}, "오늘 날짜 → 어제의 기준일자"),
        Step("get_stock_price_trend",
             lambda r: {"likeSrtnCd": first(r, 2, "stock_code"), "endBasDt": first(r, 4, "yyyymmdd"),
                        "numOfRows": 1},
             "단축코드 → 어제(직전 거래일) 종가"),
        Step("evaluate_expression",
             lambda r: {"expression": f"({_num(first(r, 5, 'clpr'))} - "
                                      f"{_num(first(r, 3, 'act_mktprcfl_cvprc_lwtrsprc'))}) / "
                                      f"{_num(first(r, 3, 'act_mktprcfl_cvprc_lwtrsprc'))} * 100"},
             "(종가 − 최저 조정가액) / 최저 조정가액 × 100"),
    ),
    answer=lambda r: f"{first(r, 6, 'value')} %",
)

TRAFFIC = Chain(
    domain="traffic",
    question="시청역(2호선) 평일 상행 열차는 하루 몇 편 운행되는가?",
    platforms=("seoul",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "seoul"}, "서울 열린데이터광장 인증키 발급"),
        Step("find_seoul_subway_station_code", lambda r: {"START_INDEX": 1, "END_INDEX": 5, "STATION_NM": "시청"},
             "역명 → 전철역코드 (호선별로 여러 건)"),
        Step("get_seoul_subway_timetable",
             lambda r: {"START_INDEX": 1, "END_INDEX": 5, "WEEK_TAG": "1", "INOUT_TAG": "1",
                        "STATION_CD": next(x["STATION_CD"] for x in r[1].records if x["LINE_NUM"].startswith("02"))},
             "2호선 역코드 → 평일 상행 시간표 (list_total_count가 운행 편수)"),
    ),
    answer=lambda r: f"{r[2].total_count}편",
)

EDUCATION = Chain(
    domain="education",
    question="제주특별자치도교육청 소관 중학교 중 첫 번째 학교의 2025학년도 1학년 학급 수는?",
    platforms=("edu",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "edu"}, "NEIS·학교알리미 인증키 발급"),
        Step("find_neis_school_code",
             lambda r: {"ATPT_OFCDC_SC_CODE": "T10", "SCHUL_KND_SC_NM": "중학교", "pSize": 10},
             "교육청 코드·학교급 → 학교 목록 (행정표준코드)"),
        Step("get_neis_class_info",
             lambda r: {"ATPT_OFCDC_SC_CODE": first(r, 1, "ATPT_OFCDC_SC_CODE"),
                        "SD_SCHUL_CODE": first(r, 1, "SD_SCHUL_CODE"), "AY": "2025", "GRADE": "1", "pSize": 100},
             "학교코드 → 학급정보 (list_total_count가 학급 수)"),
    ),
    answer=lambda r: f"{first(r, 1, 'SCHUL_NM')} 1학년 {r[2].total_count}학급",
)

LAW = Chain(
    domain="law",
    question="현행 도로교통법 제5조의 제목은?",
    platforms=("law",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "law"}, "국가법령정보센터 OC 등록"),
        Step("search_current_laws", lambda r: {"query": "도로교통법"}, "법령명 → 법령일련번호(MST)·법령ID"),
        Step("get_law_text",
             lambda r: {"MST": next(x["법령일련번호"] for x in r[1].records if x["법령명한글"] == "도로교통법"),
                        "JO": "000500"},
             "MST + 조문번호(JO=000500) → 조문"),
    ),
    answer=lambda r: f"제{first(r, 2, '조문번호')}조({first(r, 2, '조문제목')})",
)

POLITICS = Chain(
    domain="politics",
    question="제22대 국회에서 가장 최근 표결한 의안에 첫 번째로 표결한 의원의 소속 정당은?",
    platforms=("assembly",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "assembly"}, "열린국회정보 인증키 발급"),
        Step("list_bill_vote_results", lambda r: {"AGE": "22", "pSize": 5}, "대수 → 의안별 표결현황 (BILL_ID)"),
        Step("get_member_plenary_votes",
             lambda r: {"AGE": "22", "BILL_ID": first(r, 1, "BILL_ID"), "pSize": 5},
             "AGE + BILL_ID → 의원별 표결 (약 300건 중 첫 페이지)"),
        Step("find_assembly_member", lambda r: {"MONA_CD": first(r, 2, "MONA_CD")}, "MONA_CD → 의원 인적사항"),
    ),
    answer=lambda r: f"{first(r, 3, 'HG_NM')} 의원, {first(r, 3, 'POLY_NM')}",
)

DISTRICT = Chain(
    domain="district",
    question="수원시의 지역화폐 가맹점은 몇 곳인가?",
    platforms=("gg",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "gg"}, "경기데이터드림 인증키 발급"),
        Step("find_gg_sigun_code", lambda r: {"SIGUN_NM": "수원시"}, "시군명 → SIGUN_CD"),
        Step("search_gg_local_currency_merchants", lambda r: {"SIGUN_CD": first(r, 1, "SIGUN_CD"), "pSize": 5},
             "SIGUN_CD → 지역화폐 가맹점 (list_total_count가 가맹점 수)"),
    ),
    answer=lambda r: f"{r[2].total_count:,}곳",
)

HIGHWAY = Chain(
    domain="traffic",
    question="경부선 안성휴게소(서울방향)의 대표음식과 가격은?",
    platforms=("ex",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "ex"}, "한국도로공사 인증키 발급"),
        Step("find_ex_rest_area", lambda r: {"unitName": "안성"}, "휴게소명 → 휴게소 코드 (상·하행 2곳 이상)"),
        Step("list_ex_rest_bestfood",
             lambda r: {"serviceAreaName": next(x["unitName"] for x in r[1].records if "서울" in x["unitName"])},
             "서울방향 휴게소명 → 대표음식"),
    ),
    answer=lambda r: ", ".join(f"{x['batchMenu']} {int(x['salePrice']):,}원"
                               for x in r[2].records if x.get("bestfoodyn") == "Y"),
)

DEPOSIT_INSURANCE = Chain(
    domain="finance",
    question="부보 은행 중 첫 번째 은행의 최근 BIS 자기자본비율은? (DART 법인등록번호로 예금보험공사 경영현황 조회)",
    platforms=("kdic", "dart"),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "kdic"}, "공공데이터포털 인증키 발급"),
        Step("issue_api_key", lambda r: {"platform": "dart"}, "DART 인증키 발급"),
        Step("list_kdic_insured_institutions", lambda r: {"fncsecDscdNm": "은행", "numOfRows": 5},
             "금융권 → 부보금융회사 목록"),
        Step("find_dart_corp_code", lambda r: {"corp_name": first(r, 2, "fnccmpNm")}, "회사명 → DART 고유번호"),
        Step("get_dart_company_overview", lambda r: {"corp_code": first(r, 3, "corp_code")},
             "고유번호 → 기업개황 (법인등록번호)"),
        Step("get_kdic_bank_management_status", lambda r: {"crpno": first(r, 4, "jurir_no"), "numOfRows": 1},
             "법인등록번호(crpno) → 은행 경영현황 (최근 분기부터)"),
    ),
    answer=lambda r: f"{first(r, 2, 'fnccmpNm')} {first(r, 5, 'baseYm')} BIS {first(r, 5, 'bisRto')}%",
)

QUALIFICATION = Chain(
    domain="education",
    question="정보처리기사 2026년 첫 회 필기시험 원서접수 기간은?",
    platforms=("hrd",),
    steps=(
        Step("issue_api_key", lambda r: {"platform": "hrd"}, "HRD-Net·공공데이터포털 인증키 발급"),
        Step("list_qnet_qualifications", lambda r: {"qualgbcd": "T", "seriescd": "03", "numOfRows": 100},
             "자격구분·계열 → 종목 목록 (jmCd)"),
        Step("get_qnet_exam_schedule_by_jm",
             lambda r: {"jmCd": next(x["jmcd"] for x in r[1].records if x["jmfldnm"] == "정보처리기사")},
             "jmCd → 종목별 시험일정"),
    ),
    answer=lambda r: f"{first(r, 2, 'implplannm')}: {first(r, 2, 'docregstartdt')}~{first(r, 2, 'docregenddt')}",
)

CHAINS: list[Chain] = [FINANCE, DEPOSIT_INSURANCE, TRAFFIC, HIGHWAY, EDUCATION, QUALIFICATION, LAW, POLITICS,
                       DISTRICT]


def _summary(result: ToolResult) -> str:
    retries = f" [yellow](after {len(result.attempts)} attempts)[/yellow]" if len(result.attempts) > 1 else ""
    if not result.ok and result.error is not None:
        e = result.error
        return f"[red]{e.error_class}/{e.kind} {e.code}[/red] {e.message}{retries}"
    shown = result.records[0] if result.records else {}
    preview = ", ".join(f"{k}={v}" for k, v in list(shown.items())[:6])
    total = f"{result.total_count:,}" if result.total_count is not None else "?"
    return f"[green]{total} record(s)[/green]{retries}  {preview}"


def run_chain(runtime: ToolRuntime, chain: Chain, console: Console, account: FaultAccount | None = None) -> bool:
    console.rule(f"[bold]{chain.domain}[/bold] — {chain.question}")
    results: Results = []
    for i, step in enumerate(chain.steps, 1):
        try:
            args = step.args(results)
        except (IndexError, KeyError) as exc:
            console.print(f"  step {i}: cannot derive arguments from earlier steps ({exc!r})")
            return False
        result = runtime.call(step.tool, args)
        results.append(result)
        if account is not None and step.tool in runtime.catalog:
            account.add(runtime.catalog[step.tool].platform, result)
        console.print(f"  [bold]{i}. {step.tool}[/bold]({', '.join(f'{k}={v}' for k, v in args.items())})"
                      f"  [dim]{step.why}[/dim]")
        console.print(f"     → {_summary(result)}")
        if not result.ok:
            return False
    console.print(f"  [bold]answer:[/bold] {chain.answer(results)}")
    return True


def run_demo(backend: Backend, console: Console) -> int:
    console.print(f"backend: {backend.description}; today = {backend.today().isoformat()}")
    failures = 0
    account = FaultAccount()
    for chain in CHAINS:
        runtime = ToolRuntime(backend)  # a fresh episode per chain
        if not run_chain(runtime, chain, console, account):
            failures += 1
    console.print(f"{len(CHAINS) - failures}/{len(CHAINS)} chains completed; {account.summary()}")
    if account.rows():
        table = Table(title="failed attempts by platform and class")
        for col in ("platform", "class", "kind", "attempts"):
            table.add_column(col)
        for row in account.rows():
            table.add_row(row.platform, row.outcome, row.kind, str(row.count))
        console.print(table)
    return failures
