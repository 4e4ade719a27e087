"""DART 정기보고서 (사업·반기·분기보고서) as filed from 2015, and their financial statements on demand.

One function, `filings`, says which periodic reports a company has filed and under which 접수번호: 공시검색
(list.json) lists exactly these, and the financial-statement APIs (fnlttSinglAcnt, fnlttMultiAcnt,
fnlttSinglAcntAll) and the 정기보고서 주요정보 APIs answer every one of them with the same rcept_no, so a
client can go from a listed 사업보고서 to its statements. Statements are generated per (company, year)
from named streams when asked, never stored for every year.

Who files: every listed company (사업보고서, 반기보고서, 1분기·3분기 분기보고서) and about 30% of the unlisted
ones (사업보고서 only: 외부감사·증권신고 대상 비상장법인). Periods run from 2015 (the first year the
financial APIs serve) to the last report filed before the virtual today.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sim.endpoints import SimError
from sim.world.companies import Company
from sim.world.context import WorldContext, yyyymmdd
from sim.world.rng import stable_int, stream
from sim.world.table import TableData

FIRST_YEAR = 2015
_MAX_YEARS = 30  # draws per company cover 2015..2044, so a later world keeps every earlier filing as it was
# reprt_code: (title, month the period ends, filing window (month, first day, last day), year offset)
REPORTS = {
    "11013": ("분기보고서", 3, (5, 2, 15), 0),
    "11012": ("반기보고서", 6, (8, 1, 14), 0),
    "11014": ("분기보고서", 9, (11, 1, 14), 0),
    "11011": ("사업보고서", 12, (3, 10, 31), 1),
}
_ORDER = ("11013", "11012", "11014", "11011")


@dataclass(frozen=True)
class Filing:
    company: Company
    year: int
    reprt_code: str
    rcept_dt: str
    rcept_no: str

    @property
    def report_nm(self) -> str:
        title, month, _, _ = REPORTS[self.reprt_code]
        return f"{title} ({self.year}.{month:02d})"


def files_periodic(ctx: WorldContext, c: Company) -> bool:
    return bool(c.stock_code) or stable_int(ctx.seed, "dart-filer", c.corp_code) % 10 < 3


def filings(ctx: WorldContext) -> dict[tuple[str, int, str], Filing]:
    """Every periodic report filed before 'today', keyed by (corp_code, bsns_year, reprt_code)."""
    if "dart_filings" in ctx._cache:
        return ctx._cache["dart_filings"]
    out: dict[tuple[str, int, str], Filing] = {}
    today = yyyymmdd(ctx.today)
    for rank, c in enumerate(ctx.companies):
        if not files_periodic(ctx, c):
            continue
        offsets = stream(ctx.seed, "dart-filing-day", c.corp_code).random((_MAX_YEARS, len(_ORDER)))
        codes = _ORDER if c.stock_code else ("11011",)
        for y in range(FIRST_YEAR, ctx.today.year + 1):
            for code in codes:
                _, _, (month, first, last), shift = REPORTS[code]
                k = _ORDER.index(code)
                day = dt.date(y + shift, month, first + int(offsets[y - FIRST_YEAR, k] * (last - first + 1)))
                while day.weekday() >= 5:
                    day += dt.timedelta(days=1)
                filed = yyyymmdd(day)
                if filed >= today:
                    continue
                # Unique within a day: the report kind and the company's rank (≤ 6,006) pick the serial.
                out[(c.corp_code, y, code)] = Filing(c, y, code, filed, f"{filed}{500_000 + k * 20_000 + rank:06d}")
    ctx._cache["dart_filings"] = out
    return out


def filing(ctx: WorldContext, corp_code: str, year: int, reprt_code: str) -> Filing | None:
    return filings(ctx).get((corp_code, year, reprt_code))


def latest_annual_year(ctx: WorldContext) -> int:
    """The last business year whose 사업보고서 is due before 'today' (2024 for a January 2026 world)."""
    return ctx.today.year - 1 if ctx.today >= dt.date(ctx.today.year, 4, 1) else ctx.today.year - 2


# ---------------------------------------------------------------------------------------------------------
# Key accounts. Annual values of (company, year) come from a stream named by both, so any year is drawn
# alone; a report's 전기/전전기 columns are the earlier years' own values, as in the real statements.

KEY_ACCOUNTS = (("BS", "재무상태표", "자산총계"), ("BS", "재무상태표", "부채총계"), ("BS", "재무상태표", "자본총계"),
                ("IS", "손익계산서", "매출액"), ("IS", "손익계산서", "영업이익"), ("IS", "손익계산서", "당기순이익"))
_FS = (("CFS", "연결재무제표"), ("OFS", "재무제표"))


@lru_cache(maxsize=65536)
def _annual(seed: int, corp_code: str, scale: float, year: int) -> tuple[np.ndarray, np.ndarray]:
    """(CFS, OFS) key accounts of one business year, plus quarter shares: ((2, 6) int64, (4,) float)."""
    base = stream(seed, "dart-fin-base", corp_code)
    level, debt_rt, turnover, margin, keep = base.uniform(0.4, 2.0), base.uniform(0.2, 0.7), \
        base.uniform(0.3, 1.5), base.uniform(-0.05, 0.15), base.uniform(0.5, 0.9)
    rng = stream(seed, "dart-fin", f"{corp_code}:{year}")
    assets = scale * level * 1.05 ** (year - 2024) * rng.lognormal(0, 0.06)
    debt = assets * min(0.9, debt_rt * rng.uniform(0.9, 1.1))
    sales = assets * turnover * rng.uniform(0.85, 1.15)
    op = sales * (margin + rng.uniform(-0.05, 0.05))
    net = op * keep * rng.uniform(0.9, 1.1)
    cfs = np.array([assets, debt, assets - debt, sales, op, net])
    ofs = cfs * rng.uniform(0.6, 0.95)
    shares = rng.dirichlet([8, 8, 8, 8])
    return np.stack([cfs, ofs]).astype(np.int64), shares


def _scale(c: Company) -> float:
    return float(max(c.list_shrs * c.base_price, 5_000_000_000))


def annual(ctx: WorldContext, c: Company, year: int) -> np.ndarray:
    return _annual(ctx.seed, c.corp_code, _scale(c), year)[0]


def _quarter_bs(ctx: WorldContext, c: Company, year: int, q: int) -> np.ndarray:
    """Balance-sheet accounts at the end of quarter q (1..3): between the two year-ends."""
    before, after = annual(ctx, c, year - 1)[:, :3], annual(ctx, c, year)[:, :3]
    return (before + (after - before) * q / 4).astype(np.int64)


def _quarter_is(ctx: WorldContext, c: Company, year: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Income-statement accounts of quarter q alone and cumulated from January."""
    values, shares = _annual(ctx.seed, c.corp_code, _scale(c), year)
    quarters = [(values[:, 3:] * shares[k]).astype(np.int64) for k in range(q)]
    return quarters[-1], np.sum(quarters, axis=0)  # the cumulated amount is the quarters' own sum


_Q = {"11013": 1, "11012": 2, "11014": 3}
_Q_NAME = {1: "1분기", 2: "반기", 3: "3분기"}


def _period(year: int, q: int) -> str:
    start = {1: "01.01", 2: "04.01", 3: "07.01"}[q]
    end = {1: "03.31", 2: "06.30", 3: "09.30"}[q]
    return f"{year}.{start} ~ {year}.{end}"


def key_account_rows(ctx: WorldContext, f: Filing) -> list[dict[str, str]]:
    """fnlttSinglAcnt's records for one filing: 6 key accounts × (연결, 별도), amounts with commas.
    Quarterly reports carry 누적금액 (thstrm/frmtrm_add_amount) on 손익 accounts and no 전전기; annual ones
    carry 전전기 and no 누적금액 (those fields are left empty here and dropped from the record when served)."""
    c, y = f.company, f.year
    n = y - 1990
    q = _Q.get(f.reprt_code)
    rows = []
    if q is None:
        this, last, before = annual(ctx, c, y), annual(ctx, c, y - 1), annual(ctx, c, y - 2)
    else:
        bs_now, bs_last = _quarter_bs(ctx, c, y, q), annual(ctx, c, y - 1)[:, :3]
        is_now, is_now_cum = _quarter_is(ctx, c, y, q)
        is_last, is_last_cum = _quarter_is(ctx, c, y - 1, q)
    for d, (fs_div, fs_nm) in enumerate(_FS):
        for order, (sj_div, sj_nm, name) in enumerate(KEY_ACCOUNTS):
            bs = sj_div == "BS"
            row = {"rcept_no": f.rcept_no, "bsns_year": str(y), "corp_code": c.corp_code, "stock_code": c.stock_code,
                   "reprt_code": f.reprt_code, "account_nm": name, "fs_div": fs_div, "fs_nm": fs_nm,
                   "sj_div": sj_div, "sj_nm": sj_nm}
            if q is None:
                row.update({
                    "thstrm_nm": f"제 {n} 기", "thstrm_dt": f"{y}.12.31 현재" if bs else f"{y}.01.01 ~ {y}.12.31",
                    "thstrm_amount": f"{this[d, order]:,}", "thstrm_add_amount": "",
                    "frmtrm_nm": f"제 {n - 1} 기",
                    "frmtrm_dt": f"{y - 1}.12.31 현재" if bs else f"{y - 1}.01.01 ~ {y - 1}.12.31",
                    "frmtrm_amount": f"{last[d, order]:,}", "frmtrm_add_amount": "",
                    "bfefrmtrm_nm": f"제 {n - 2} 기",
                    "bfefrmtrm_dt": f"{y - 2}.12.31 현재" if bs else f"{y - 2}.01.01 ~ {y - 2}.12.31",
                    "bfefrmtrm_amount": f"{before[d, order]:,}"})
            elif bs:
                end = {1: "03.31", 2: "06.30", 3: "09.30"}[q]
                row.update({
                    "thstrm_nm": f"제 {n} 기 {_Q_NAME[q]}말", "thstrm_dt": f"{y}.{end} 현재",
                    "thstrm_amount": f"{bs_now[d, order]:,}", "thstrm_add_amount": "",
                    "frmtrm_nm": f"제 {n - 1} 기말", "frmtrm_dt": f"{y - 1}.12.31 현재",
                    "frmtrm_amount": f"{bs_last[d, order]:,}", "frmtrm_add_amount": "",
                    "bfefrmtrm_nm": "", "bfefrmtrm_dt": "", "bfefrmtrm_amount": ""})
            else:
                k = order - 3
                row.update({
                    "thstrm_nm": f"제 {n} 기 {_Q_NAME[q]}", "thstrm_dt": _period(y, q),
                    "thstrm_amount": f"{is_now[d, k]:,}", "thstrm_add_amount": f"{is_now_cum[d, k]:,}",
                    "frmtrm_nm": f"제 {n - 1} 기 {_Q_NAME[q]}", "frmtrm_dt": _period(y - 1, q),
                    "frmtrm_amount": f"{is_last[d, k]:,}", "frmtrm_add_amount": f"{is_last_cum[d, k]:,}",
                    "bfefrmtrm_nm": "", "bfefrmtrm_dt": "", "bfefrmtrm_amount": ""})
            row.update({"ord": str(order + 1), "currency": "KRW"})
            rows.append(row)
    return rows


KEY_FIELDS = ("rcept_no", "bsns_year", "corp_code", "stock_code", "reprt_code", "account_nm", "fs_div", "fs_nm",
              "sj_div", "sj_nm", "thstrm_nm", "thstrm_dt", "thstrm_amount", "thstrm_add_amount", "frmtrm_nm",
              "frmtrm_dt", "frmtrm_amount", "frmtrm_add_amount", "bfefrmtrm_nm", "bfefrmtrm_dt", "bfefrmtrm_amount",
              "ord", "currency")
OPTIONAL_KEY_FIELDS = ("thstrm_add_amount", "frmtrm_add_amount", "bfefrmtrm_nm", "bfefrmtrm_dt", "bfefrmtrm_amount")

# 단일회사 전체 재무제표: every account of the statements, split from the key accounts so both APIs agree.
ALL_ACCOUNTS: tuple[tuple[str, str, str, str, int, float], ...] = (
    # sj_div, sj_nm, account_id, account_nm, index of the key account it derives from, share of it
    ("BS", "재무상태표", "ifrs-full_CurrentAssets", "유동자산", 0, 0.45),
    ("BS", "재무상태표", "ifrs-full_NoncurrentAssets", "비유동자산", 0, 0.55),
    ("BS", "재무상태표", "ifrs-full_Assets", "자산총계", 0, 1.0),
    ("BS", "재무상태표", "ifrs-full_CurrentLiabilities", "유동부채", 1, 0.7),
    ("BS", "재무상태표", "ifrs-full_NoncurrentLiabilities", "비유동부채", 1, 0.3),
    ("BS", "재무상태표", "ifrs-full_Liabilities", "부채총계", 1, 1.0),
    ("BS", "재무상태표", "ifrs-full_IssuedCapital", "자본금", 2, 0.08),
    ("BS", "재무상태표", "ifrs-full_RetainedEarnings", "이익잉여금(결손금)", 2, 0.6),
    ("BS", "재무상태표", "ifrs-full_Equity", "자본총계", 2, 1.0),
    ("IS", "손익계산서", "ifrs-full_Revenue", "매출액", 3, 1.0),
    ("IS", "손익계산서", "ifrs-full_CostOfSales", "매출원가", 3, 0.78),
    ("IS", "손익계산서", "ifrs-full_GrossProfit", "매출총이익", 3, 0.22),
    ("IS", "손익계산서", "dart_OperatingIncomeLoss", "영업이익(손실)", 4, 1.0),
    ("IS", "손익계산서", "ifrs-full_ProfitLossBeforeTax", "법인세비용차감전순이익(손실)", 5, 1.25),
    ("IS", "손익계산서", "ifrs-full_ProfitLoss", "당기순이익(손실)", 5, 1.0),
    ("CF", "현금흐름표", "ifrs-full_CashFlowsFromUsedInOperatingActivities", "영업활동현금흐름", 4, 1.3),
    ("CF", "현금흐름표", "ifrs-full_CashFlowsFromUsedInInvestingActivities", "투자활동현금흐름", 4, -0.8),
    ("CF", "현금흐름표", "ifrs-full_CashFlowsFromUsedInFinancingActivities", "재무활동현금흐름", 4, -0.3),
)
ALL_FIELDS = ("rcept_no", "reprt_code", "bsns_year", "corp_code", "sj_div", "sj_nm", "account_id", "account_nm",
              "account_detail", "thstrm_nm", "thstrm_amount", "thstrm_add_amount", "frmtrm_nm", "frmtrm_amount",
              "frmtrm_add_amount", "bfefrmtrm_nm", "bfefrmtrm_amount", "ord", "currency")
OPTIONAL_ALL_FIELDS = ("thstrm_add_amount", "frmtrm_add_amount", "bfefrmtrm_nm", "bfefrmtrm_amount")


def all_account_rows(ctx: WorldContext, f: Filing, fs_div: str) -> list[dict[str, str]]:
    """fnlttSinglAcntAll's records: the key accounts split into statement lines, plain digits."""
    key = {(r["fs_div"], r["account_nm"]): r for r in key_account_rows(ctx, f)}
    names = [a[2] for a in KEY_ACCOUNTS]
    rows = []
    for order, (sj_div, sj_nm, account_id, account_nm, src, share) in enumerate(ALL_ACCOUNTS):
        r = key[(fs_div, names[src])]

        def part(field: str, r=r, share=share) -> str:
            text = r[field].replace(",", "")
            return str(int(int(text) * share)) if text else ""

        rows.append({"rcept_no": f.rcept_no, "reprt_code": f.reprt_code, "bsns_year": str(f.year),
                     "corp_code": f.company.corp_code, "sj_div": sj_div, "sj_nm": sj_nm, "account_id": account_id,
                     "account_nm": account_nm, "account_detail": "-", "thstrm_nm": r["thstrm_nm"],
                     "thstrm_amount": part("thstrm_amount"), "thstrm_add_amount": part("thstrm_add_amount"),
                     "frmtrm_nm": r["frmtrm_nm"], "frmtrm_amount": part("frmtrm_amount"),
                     "frmtrm_add_amount": part("frmtrm_add_amount"), "bfefrmtrm_nm": r["bfefrmtrm_nm"],
                     "bfefrmtrm_amount": part("bfefrmtrm_amount"), "ord": str(order + 1), "currency": "KRW",
                     "fs_div": fs_div})
    return rows


def _table(name: str, fields: tuple[str, ...], rows: list[dict[str, str]], entities: dict[str, str]) -> TableData:
    return TableData(name, {k: [r[k] for r in rows] for k in fields},
                     entities={k: v for k, v in entities.items() if k in fields})


ACCOUNT_ENTITIES = {"corp_code": "corp_code", "stock_code": "stock_code", "rcept_no": "rcept_no",
                    "bsns_year": "business_year", "reprt_code": "report_code"}


class KeyAccountHistory:
    """fnlttSinglAcnt / fnlttMultiAcnt: every filed report's key accounts, generated when asked."""

    name = "dart_account"

    def scope(self, ctx: WorldContext, args: dict[str, str]) -> Hashable:
        codes = tuple(sorted({v.strip() for v in args["corp_code"].split(",")}))
        return codes, int(args["bsns_year"]), args["reprt_code"]

    def generate(self, ctx: WorldContext, scope) -> TableData:
        codes, year, reprt = scope
        rows = []
        for code in codes:
            f = filing(ctx, code, year, reprt)
            if f is not None:
                rows += key_account_rows(ctx, f)
        if not rows:
            raise SimError("no_data")
        return _table(self.name, KEY_FIELDS, rows, ACCOUNT_ENTITIES)


class AllAccountHistory:
    name = "dart_account_all"

    def scope(self, ctx: WorldContext, args: dict[str, str]) -> Hashable:
        return args["corp_code"], int(args["bsns_year"]), args["reprt_code"], args["fs_div"]

    def generate(self, ctx: WorldContext, scope) -> TableData:
        code, year, reprt, fs_div = scope
        f = filing(ctx, code, year, reprt)
        if f is None:
            raise SimError("no_data")
        return _table(self.name, (*ALL_FIELDS, "fs_div"), all_account_rows(ctx, f, fs_div), ACCOUNT_ENTITIES)


def sample_filings(ctx: WorldContext) -> list[Filing]:
    """The filings the stored sample tables hold: every 사업보고서 of the latest business year."""
    year = latest_annual_year(ctx)
    return [f for (_, y, code), f in filings(ctx).items() if y == year and code == "11011"]


def account_sample(ctx: WorldContext) -> list[TableData]:
    key_rows: list[dict[str, str]] = []
    all_rows: list[dict[str, str]] = []
    for f in sample_filings(ctx):
        if not f.company.stock_code:
            continue
        key_rows += key_account_rows(ctx, f)
    for f in sample_filings(ctx)[:50]:
        all_rows += all_account_rows(ctx, f, "CFS")
    return [_table("dart_account", KEY_FIELDS, key_rows, ACCOUNT_ENTITIES),
            _table("dart_account_all", (*ALL_FIELDS, "fs_div"), all_rows, ACCOUNT_ENTITIES)]
