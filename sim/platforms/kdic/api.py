"""예금보험공사 (KDIC) on the data.go.kr gateway, plus 금융위원회 금융회사부보정보.

The insured institutions are the shared `ctx.companies` whose `fin_sector` is set, so KDIC `crpno`
and 금융위 `crno` are DART's `jurir_no`. Operation names under the documented call bases are in HWP
guides only (platforms.md §5); the ones below are plausible choices, marked unconfirmed.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import COMPANY_HEADS, PLACE_STEMS
from sim.world.table import TableData

HOST = "apis.data.go.kr"
YM = r"\d{6}"
CRPNO = r"\d{13}"
KDIC_OK = {"format_param": "resultType", "ok_msg": "NORMAL SERVICE"}
# 경영현황's portal sample shows resultCode "0" (platforms.md §0/§5).
MNGMT_OK = {"format_param": "resultType", "ok_code": "0", "ok_msg": "OK"}

SECTORS = ["은행", "금융투자", "생명보험", "손해보험", "저축은행"]
# 금융위 binsFncoAraCd (업권코드): 04 생보 is documented; the others follow the same table (unconfirmed).
_ARA_CODE = {"은행": "01", "금융투자": "02", "손해보험": "03", "생명보험": "04", "저축은행": "06"}
_CENTER = {"11": (126.978, 37.566), "26": (129.075, 35.180), "27": (128.601, 35.871), "28": (126.705, 37.456),
           "29": (126.851, 35.160), "30": (127.385, 36.351), "31": (129.311, 35.539), "36": (127.289, 36.480),
           "41": (127.009, 37.275), "51": (127.730, 37.885), "43": (127.491, 36.635), "44": (126.800, 36.518),
           "52": (127.108, 35.821), "46": (126.463, 34.816), "47": (128.505, 36.576), "48": (128.692, 35.238),
           "50": (126.531, 33.500)}


def _insured(ctx: WorldContext) -> list:
    return sorted((c for c in ctx.companies if c.fin_sector),
                  key=lambda c: (SECTORS.index(c.fin_sector), c.corp_name))


def _quarters(ctx: WorldContext, first_year: int) -> list[str]:
    """Quarter ends (YYYYMM) from `first_year` on, each published about a quarter later (before 'today')."""
    out = []
    year, month = first_year, 3
    while dt.date(year, month, 1) + dt.timedelta(days=120) <= ctx.today:
        out.append(f"{year}{month:02d}")
        year, month = (year + 1, 3) if month == 12 else (year, month + 3)
    return out


def _months(start: dt.date, end: dt.date) -> list[dt.date]:
    out = []
    d = start.replace(day=1)
    while d <= end:
        out.append(d)
        d = (d + dt.timedelta(days=32)).replace(day=1)
    return out


def _list_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("kdic", "list")
    companies = _insured(ctx)
    cols: dict[str, list] = {k: [] for k in ("num", "fncsecDscdNm", "fnccmpNm", "fncIstAdr", "cttpc", "hmpgUrladr",
                                             "isrgTgtYn", "lgtdVal", "lttdVal", "crpno")}
    for i, c in enumerate(companies):
        lon, lat = _CENTER[c.sigungu_code[:2]]
        cols["num"].append(str(i + 1))
        cols["fncsecDscdNm"].append(c.fin_sector)
        cols["fnccmpNm"].append(c.corp_name)
        cols["fncIstAdr"].append(c.adres)
        cols["cttpc"].append(f"1588-{c.corp_code[4:8]}")
        cols["hmpgUrladr"].append(f"https://www.{c.corp_code}.co.kr")
        cols["isrgTgtYn"].append("Y" if rng.random() < 0.95 else "N")
        cols["lgtdVal"].append(f"{lon + rng.normal(0, 0.03):.6f}")
        cols["lttdVal"].append(f"{lat + rng.normal(0, 0.03):.6f}")
        cols["crpno"].append(c.jurir_no)
    return TableData("kdic_insured", cols, entities={"fnccmpNm": "corp_name", "crpno": "jurir_no",
                                                     "fncsecDscdNm": "fin_sector"})


def _trend_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("kdic", "trend")
    quarters = _quarters(ctx, ctx.n(2020, 2010))
    base = {"은행": 1_200_000, "금융투자": 60_000, "생명보험": 900_000, "손해보험": 250_000, "저축은행": 90_000}
    cols: dict[str, list] = {k: [] for k in ("calcBaseYm", "fncsecDscdNm", "tgtOndmDpsamt", "excdOndmDpsamt",
                                             "sumOndmDpsamt", "tgtSvtpDpsamt", "excdSvtpDpsamt", "sumSvtpDpsamt",
                                             "tgtDpsamt", "excdDpsamt", "sumDpsamt")}
    for q_i, ym in enumerate(reversed(quarters)):  # newest first
        for sector in SECTORS:
            grow = (1.012 ** (len(quarters) - q_i)) * rng.uniform(0.97, 1.03)
            total = base[sector] * grow  # 억원
            dem_t, dem_x = total * 0.18, total * 0.03
            sav_t, sav_x = total * 0.72, total * 0.07
            values = [dem_t, dem_x, dem_t + dem_x, sav_t, sav_x, sav_t + sav_x, dem_t + sav_t, dem_x + sav_x,
                      total]
            cols["calcBaseYm"].append(ym)
            cols["fncsecDscdNm"].append(sector)
            for key, v in zip(list(cols)[2:], values, strict=True):
                cols[key].append(str(round(v)))
    return TableData("kdic_deposit_trend", cols, entities={"calcBaseYm": "year_month", "fncsecDscdNm": "fin_sector"})


_MNGMT_FIELDS = {
    "은행": ("totAsst", "totDbt", "totCptl", "bisRto", "nplRto", "roaRto", "roeRto", "cnprfNprf"),
    "금융투자": ("totAsst", "totDbt", "totCptl", "ncrRto", "oprtPnl", "cnprfNprf"),
    "손해보험": ("totAsst", "totDbt", "totCptl", "inspnl", "ivstPnl", "cnprfNprf", "rbcRto"),
    "생명보험": ("totAsst", "totDbt", "totCptl", "inspnl", "ivstPnl", "cnprfNprf", "rbcRto"),
}
_SECTOR_TABLE = {"은행": "kdic_mngmt_bank", "금융투자": "kdic_mngmt_invest", "손해보험": "kdic_mngmt_nonlife",
                 "생명보험": "kdic_mngmt_life"}


def _mngmt_tables(ctx: WorldContext) -> list[TableData]:
    """경영현황·재무현황 per sector: one row per company and quarter, newest quarter first."""
    rng = ctx.rng("kdic", "mngmt")
    quarters = list(reversed(_quarters(ctx, ctx.n(2024, 2020))))
    out = []
    for sector, fields in _MNGMT_FIELDS.items():
        companies = sorted((c for c in ctx.companies if c.fin_sector == sector), key=lambda c: c.corp_name)
        cols: dict[str, list] = {k: [] for k in ("num", "baseYm", "dvsnNm", "crpno", *fields)}
        scale = {c.corp_code: float(rng.uniform(0.5, 400.0)) for c in companies}  # 총자산, 조원
        for ym in quarters:
            for c in companies:
                asset = scale[c.corp_code] * 1e12 * rng.uniform(0.97, 1.03)
                equity = asset * rng.uniform(0.05, 0.12)
                profit = asset * rng.normal(0.005, 0.004)
                values = {"totAsst": asset, "totDbt": asset - equity, "totCptl": equity, "cnprfNprf": profit,
                          "inspnl": profit * 0.6, "ivstPnl": profit * 0.9, "oprtPnl": profit * 1.3}
                ratios = {"bisRto": rng.uniform(13, 19), "nplRto": rng.uniform(0.2, 1.2),
                          "roaRto": profit / asset * 100, "roeRto": profit / equity * 100,
                          "ncrRto": rng.uniform(300, 1800), "rbcRto": rng.uniform(150, 320)}
                cols["num"].append(str(len(cols["num"]) + 1))
                cols["baseYm"].append(ym)
                cols["dvsnNm"].append(c.corp_name)
                cols["crpno"].append(c.jurir_no)
                for f in fields:
                    cols[f].append(f"{ratios[f]:.2f}" if f in ratios else str(round(values[f] / 1e6)))  # 백만원
        out.append(TableData(_SECTOR_TABLE[sector], cols, entities={"crpno": "jurir_no", "dvsnNm": "corp_name",
                                                                    "baseYm": "year_month"}))
    return out


_FAILED_KINDS = [("상호저축은행", 0.55), ("종합금융", 0.15), ("신용협동조합", 0.2), ("증권", 0.05), ("생명보험", 0.05)]
_RESOLUTION = ["계약이전", "파산", "합병", "자산부채이전(P&A)", "청산"]
_STATUS = ["파산종결", "파산진행", "정리완료"]


def _accident_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("kdic", "accident")
    n = ctx.n(40, 450)
    kinds = [k for k, _ in _FAILED_KINDS]
    probs = np.array([p for _, p in _FAILED_KINDS])
    kind_i = rng.choice(len(kinds), size=n, p=probs / probs.sum())
    stems = PLACE_STEMS + COMPANY_HEADS
    stem_i = rng.permutation(len(stems) * len(kinds))[:n]
    days = rng.integers(0, (dt.date(2013, 12, 31) - dt.date(1997, 11, 1)).days, n)
    cols: dict[str, list] = {k: [] for k in ("fnccmpNm", "stsNm", "insacdDyVal", "rsluMthoCont", "ctrcBfrDcsnDyVal",
                                             "telnoKindCont", "baseYm")}
    rows = []
    for k in range(n):
        kind = kinds[int(kind_i[k])]
        name = f"{stems[int(stem_i[k]) % len(stems)]}{kind}"
        day = dt.date(1997, 11, 1) + dt.timedelta(days=int(days[k]))
        rows.append((day, name, k))
    rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
    seen: dict[str, int] = {}
    for day, name, k in rows:
        seen[name] = seen.get(name, 0) + 1
        label = name if seen[name] == 1 else f"{name}({seen[name]})"
        decided = day - dt.timedelta(days=int(rng.integers(1, 40)))
        cols["fnccmpNm"].append(label)
        cols["stsNm"].append(_STATUS[k % len(_STATUS)])
        cols["insacdDyVal"].append(f"{day.year}.{day.month}.{day.day}")  # free text, as on the portal
        cols["rsluMthoCont"].append(_RESOLUTION[int(rng.integers(0, len(_RESOLUTION)))])
        cols["ctrcBfrDcsnDyVal"].append(f"{decided.year}.{decided.month}.{decided.day}")
        cols["telnoKindCont"].append(f"02-{758 + k % 40}-{1000 + k:04d} (파산재단)")
        cols["baseYm"].append(f"{day.year}{day.month:02d}")
    return TableData("kdic_accident", cols, entities={"fnccmpNm": "failed_fin_name"})


_FUND_DIVISIONS = ["은행계정", "금융투자계정", "생명보험계정", "손해보험계정", "종합금융계정", "상호저축은행계정",
                   "상호저축은행구조조정특별계정"]


def _fund_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("kdic", "fund")
    last = ctx.today.replace(day=1) - dt.timedelta(days=1)
    months = list(reversed(_months(dt.date(ctx.n(2023, 2010), 1, 1), last)))
    cols: dict[str, list] = {k: [] for k in ("baseYr", "baseMn", "fndMakDvsnNm", "prmfeeAmt", "sscrAmt",
                                             "spprFundRtrvAmt", "mnivBnfAmt", "etcAmt", "baseTm")}
    for m in months:
        for division in _FUND_DIVISIONS:
            cols["baseYr"].append(str(m.year))
            cols["baseMn"].append(f"{m.month:02d}")
            cols["fndMakDvsnNm"].append(division)
            for key, scale in (("prmfeeAmt", 900), ("sscrAmt", 120), ("spprFundRtrvAmt", 300), ("mnivBnfAmt", 80),
                               ("etcAmt", 10)):
                cols[key].append(str(int(rng.integers(0, scale)) * 100))  # 백만원
            cols["baseTm"].append(f"{m.year}{m.month:02d}")
    return TableData("kdic_fund", cols, entities={"baseTm": "year_month"})


_BOND_KINDS = [("예금보험기금채권", "예금보험기금"), ("예금보험기금채권상환기금채권", "상환기금"),
               ("상호저축은행구조조정특별계정채권", "상호저축은행구조조정특별계정")]


def _bond_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("kdic", "bond")
    n = ctx.n(120, 400)
    days = np.sort(rng.integers(0, (ctx.today - dt.date(2011, 4, 1)).days, n))[::-1]
    cols: dict[str, list] = {k: [] for k in ("dpsmBndKdcdNm", "bndNo", "fundCdNm", "isueDt", "matuDt", "iamtRt",
                                             "bndIsueAmt")}
    serial: dict[tuple[int, int], int] = {}
    for k in range(n):
        issued = dt.date(2011, 4, 1) + dt.timedelta(days=int(days[k]))
        kind_i = int(rng.integers(0, len(_BOND_KINDS)))
        kind, fund = _BOND_KINDS[kind_i]
        serial[(issued.year, kind_i)] = serial.get((issued.year, kind_i), 0) + 1
        cols["dpsmBndKdcdNm"].append(kind)
        cols["bndNo"].append(f"{kind[:4]}{issued.year % 100:02d}-{kind_i + 1}-{serial[(issued.year, kind_i)]:03d}")
        cols["fundCdNm"].append(fund)
        cols["isueDt"].append(yyyymmdd(issued))
        cols["matuDt"].append(yyyymmdd(issued + dt.timedelta(days=365 * int(rng.choice([1, 2, 3, 5])))))
        cols["iamtRt"].append(f"{rng.uniform(1.2, 4.8):.3f}")
        cols["bndIsueAmt"].append(str(int(rng.integers(1, 40)) * 100_000_000_00))
    return TableData("kdic_bond", cols, entities={"bndNo": "kdic_bond_no"})


_REPORTS = ["{y}년 연차보고서", "{y} 지속가능경영보고서", "금융리스크리뷰 {y}년 봄호", "금융리스크리뷰 {y}년 가을호",
            "{y}년 예금보험제도 안내 책자", "{y}년 금융회사 차등보험료율제도 해설"]
_DEPTS = ["기획조정부", "연구조사실", "홍보실", "리스크관리1부", "보험정책부"]


def _report_table(ctx: WorldContext) -> TableData:
    """발행보고서정보: 57 rows, as the portal sample's totalCount."""
    rng = ctx.rng("kdic", "report")
    cols: dict[str, list] = {k: [] for k in ("title", "contents", "jursDept", "regDate", "inqCnt", "regYm")}
    rows = []
    for k in range(57):
        year = ctx.today.year - 1 - k // len(_REPORTS)
        title = _REPORTS[k % len(_REPORTS)].format(y=year)
        day = dt.date(year, 1, 1) + dt.timedelta(days=int(rng.integers(30, 360)))
        rows.append((yyyymmdd(day), title, k))
    rows.sort(reverse=True)
    for reg_date, title, k in rows:
        cols["title"].append(title)
        cols["contents"].append(f"예금보험공사가 발간한 {title}입니다.")
        cols["jursDept"].append(_DEPTS[k % len(_DEPTS)])
        cols["regDate"].append(reg_date)
        cols["inqCnt"].append(str(int(rng.integers(20, 5000))))
        cols["regYm"].append(reg_date[:6])
    return TableData("kdic_report", cols, entities={"regYm": "year_month"})


def _month_ends(ctx: WorldContext, n: int) -> list[str]:
    """The last business day of each of the n months before 'today', newest first."""
    out = []
    first = ctx.today.replace(day=1)
    for _ in range(n):
        d = first - dt.timedelta(days=1)
        while d.weekday() >= 5:
            d -= dt.timedelta(days=1)
        out.append(yyyymmdd(d))
        first = d.replace(day=1)
    return out


def _bins_table(ctx: WorldContext) -> TableData:
    """금융위원회 금융회사부보정보: every insured company as of each month end."""
    companies = sorted(_insured(ctx), key=lambda c: c.jurir_no)
    cols: dict[str, list] = {k: [] for k in ("basDt", "crno", "fncoNm", "binsTrgtYn", "binsFncoAraCd",
                                             "binsFncoAraCdNm", "binsFncoRevsDt")}
    for day in _month_ends(ctx, ctx.n(6, 24)):
        for c in companies:
            cols["basDt"].append(day)
            cols["crno"].append(c.jurir_no)
            cols["fncoNm"].append(c.corp_name)
            cols["binsTrgtYn"].append("Y")
            cols["binsFncoAraCd"].append(_ARA_CODE[c.fin_sector])
            cols["binsFncoAraCdNm"].append(c.fin_sector)
            cols["binsFncoRevsDt"].append(max(c.est_dt, "19960601"))
    return TableData("kdic_fsc_bins", cols, entities={"crno": "jurir_no", "fncoNm": "corp_name"})


def tables(ctx: WorldContext) -> list[TableData]:
    return [_list_table(ctx), _trend_table(ctx), *_mngmt_tables(ctx), _accident_table(ctx), _fund_table(ctx),
            _bond_table(ctx), _report_table(ctx), _bins_table(ctx)]


_LIST = "/B190017/service/GetInsurgTrgetFnltInfoService"  # documented call base (data.go.kr 3035987)
_MNGMT = "/B190017/GetInsurgFnltMngmtOvrlInfoService"  # documented call base (data.go.kr 15091123)
_MNGMT_OPS = {"은행": "getBankMngmtOvrlInfo", "금융투자": "getFnnvstMngmtOvrlInfo", "손해보험": "getNlinsMngmtOvrlInfo",
              "생명보험": "getLfinsMngmtOvrlInfo"}  # operation names unconfirmed


def _mngmt_endpoint(sector: str) -> Endpoint:
    return Endpoint("datagokr", HOST, f"{_MNGMT}/{_MNGMT_OPS[sector]}", _SECTOR_TABLE[sector],
                    binds={"baseYm": Bind("baseYm", pattern=YM), "dvsnNm": Bind("dvsnNm"),
                           "crpno": Bind("crpno", pattern=CRPNO)},
                    fields=("num", "baseYm", "dvsnNm", "crpno", *_MNGMT_FIELDS[sector]), options=MNGMT_OK)


ENDPOINTS = [
    Endpoint("datagokr", HOST, f"{_LIST}/getInsurgTrgetFnltList", "kdic_insured",  # operation unconfirmed
             binds={"fncsecDscdNm": Bind("fncsecDscdNm"), "fnccmpNm": Bind("fnccmpNm", "contains")},
             fields=("num", "fncsecDscdNm", "fnccmpNm", "fncIstAdr", "cttpc", "hmpgUrladr", "isrgTgtYn", "lgtdVal",
                     "lttdVal"), options=KDIC_OK),
    Endpoint("datagokr", HOST, "/B190017/service/GetInsurgFnltDpsamtTrendService/getInsurgFnltDpsamtTrend",
             "kdic_deposit_trend", binds={"calcBaseYm": Bind("calcBaseYm", pattern=YM),
                                          "fncsecDscdNm": Bind("fncsecDscdNm")}, options=KDIC_OK),
    *[_mngmt_endpoint(s) for s in _MNGMT_FIELDS],
    Endpoint("datagokr", HOST, "/B190017/service/GetInsurAccdFnltInfoService/getInsurAccdFnltList",
             "kdic_accident", binds={"fnccmpNm": Bind("fnccmpNm", "contains"), "baseYm": Bind("baseYm", pattern=YM)},
             fields=("fnccmpNm", "stsNm", "insacdDyVal", "rsluMthoCont", "ctrcBfrDcsnDyVal", "telnoKindCont"),
             options=KDIC_OK),
    Endpoint("datagokr", HOST, "/B190017/service/GetDpsInsrFundMakInfoService/getDpsInsrFundMakList",
             "kdic_fund", binds={"baseTm": Bind("baseTm", pattern=YM)},
             fields=("baseYr", "baseMn", "fndMakDvsnNm", "prmfeeAmt", "sscrAmt", "spprFundRtrvAmt", "mnivBnfAmt",
                     "etcAmt"), options=KDIC_OK),
    Endpoint("datagokr", HOST, "/B190017/service/GetDpsInsrFundSpclAcntBndService/getSpclAcntBndIsueList",
             "kdic_bond", binds={"bndKdcdNm": Bind("dpsmBndKdcdNm")}, options=KDIC_OK),
    Endpoint("datagokr", HOST, "/B190017/service/GetPblcRptInfoService/getPblcRptList", "kdic_report",
             binds={"baseYm": Bind("regYm", pattern=YM), "title": Bind("title", "contains"),
                    "regDate": Bind.day("regDate")},
             fields=("title", "contents", "jursDept", "regDate", "inqCnt"), options=KDIC_OK),
    Endpoint("datagokr", HOST, "/1160100/service/GetFnCoBinsInfoService/getFnCoBinsInfo", "kdic_fsc_bins",
             binds={"basDt": Bind.day("basDt"), "crno": Bind("crno", pattern=CRPNO),
                    "fncoNm": Bind("fncoNm", "contains")},
             options={"format_param": "resultType", "ok_msg": "NORMAL SERVICE."}),
]
