"""The README's main job until the benchmark lands: multi-step lookup chains across platforms, each
step's output feeding the next, printed step by step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from kopa.backends.spec import Backend
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
)

CHAINS: list[Chain] = [FINANCE]


def _summary(result: ToolResult) -> str:
    if not result.ok and result.error is not None:
        e = result.error
        return f"[red]{e.error_class}/{e.kind} {e.code}[/red] {e.message}"
    shown = result.records[0] if result.records else {}
    preview = ", ".join(f"{k}={v}" for k, v in list(shown.items())[:6])
    total = f"{result.total_count:,}" if result.total_count is not None else "?"
    return f"[green]{total} record(s)[/green]  {preview}"


def run_chain(runtime: ToolRuntime, chain: Chain, console: Console) -> bool:
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
        console.print(f"  [bold]{i}. {step.tool}[/bold]({', '.join(f'{k}={v}' for k, v in args.items())})"
                      f"  [dim]{step.why}[/dim]")
        console.print(f"     → {_summary(result)}")
        if not result.ok:
            return False
    answer = results[-1].records[0]
    console.print(f"  [bold]answer:[/bold] {answer.get('value', answer)}")
    return True


def run_demo(backend: Backend, console: Console) -> int:
    console.print(f"backend: {backend.description}; today = {backend.today().isoformat()}")
    failures = 0
    for chain in CHAINS:
        runtime = ToolRuntime(backend)  # a fresh episode per chain
        if not run_chain(runtime, chain, console):
            failures += 1
    console.print(f"{len(CHAINS) - failures}/{len(CHAINS)} chains completed")
    return failures
