"""KRX Open API (data-dbg.krx.co.kr): 일별매매정보 by market and 종목기본정보 over the shared price table; 지수,
ETF/ETN and 신주인수권증권/증서 일별매매정보."""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.prices import ANCHOR_DAY, PriceHistory, calendar, day_index, listed, series, trading_days
from sim.world.rng import stream
from sim.world.table import Cond, TableData

HOST = "data-dbg.krx.co.kr"

_TRADE = {
    "BAS_DD": "basDt", "ISU_CD": "srtnCd", "ISU_NM": "itmsNm", "MKT_NM": "mrktCtg", "SECT_TP_NM": "sect",
    "TDD_CLSPRC": "clpr", "CMPPREVDD_PRC": "vs", "FLUC_RT": "fltRt", "TDD_OPNPRC": "mkp", "TDD_HGPRC": "hipr",
    "TDD_LWPRC": "lopr", "ACC_TRDVOL": "trqu", "ACC_TRDVAL": "trPrc", "MKTCAP": "mrktTotAmt",
    "LIST_SHRS": "lstgStCnt",
}
_BASE = {
    "ISU_CD": "isin", "ISU_SRT_CD": "stock_code", "ISU_NM": "full_name", "ISU_ABBRV": "abbrv",
    "ISU_ENG_NM": "eng_name", "LIST_DD": "list_dd", "MKT_TP_NM": "market", "SECUGRP_NM": "secugrp",
    "SECT_TP_NM": "sect", "KIND_STKCERT_TP_NM": "kind", "PARVAL": "parval", "LIST_SHRS": "list_shrs",
}


def tables(ctx: WorldContext) -> list[TableData]:
    listed = sorted((c for c in ctx.companies if c.stock_code), key=lambda c: c.stock_code)
    rng = ctx.rng("krx", "base")
    return [
        TableData(
            "krx_issue_base",
            {
                "isin": [c.isin for c in listed],
                "stock_code": [c.stock_code for c in listed],
                "full_name": [f"{c.corp_name}보통주" for c in listed],
                "abbrv": [c.corp_name for c in listed],
                "eng_name": [c.corp_eng_name for c in listed],
                "list_dd": [max(c.est_dt, "19900101") for c in listed],
                "market": [c.market for c in listed],
                "secugrp": ["주권" for _ in listed],
                "sect": [("중견기업부" if rng.random() < 0.5 else "우량기업부") if c.market == "KOSDAQ" else ""
                         for c in listed],
                "kind": ["보통주" for _ in listed],
                "parval": [str(int(rng.choice([100, 500, 1000, 5000]))) for _ in listed],
                "list_shrs": [str(c.list_shrs) for c in listed],
            },
            entities={"isin": "isin", "stock_code": "stock_code", "abbrv": "stock_name", "market": "market"},
        ),
        _index_table(ctx), _products(ctx, "etf"), _products(ctx, "etn"), _rights(ctx, "sw"), _rights(ctx, "sr"),
    ]


def _trade(api: str, market: str) -> Endpoint:
    # Any trading day from 2010 (KONEX from its opening), generated on demand from the shared series.
    return Endpoint("krx", HOST, api, "stock_daily_price",
                    binds={"basDd": Bind.day("basDt")}, required=("basDd",),
                    columns=_TRADE, fixed=(Cond("mrktCtg", "eq", market),),
                    history=PriceHistory({"basDd": "eq"}, {}, fixed_market=market))


def _base(api: str, market: str) -> Endpoint:
    return Endpoint("krx", HOST, api, "krx_issue_base",
                    binds={"basDd": Bind.day("list_dd", "le")}, required=("basDd",),
                    columns=_BASE, fixed=(Cond("market", "eq", market),))


ENDPOINTS = [
    _trade("sto/stk_bydd_trd", "KOSPI"),
    _trade("sto/ksq_bydd_trd", "KOSDAQ"),
    _trade("sto/knx_bydd_trd", "KONEX"),
    _base("sto/stk_isu_base_info", "KOSPI"),
    _base("sto/ksq_isu_base_info", "KOSDAQ"),
    _base("sto/knx_isu_base_info", "KONEX"),
]


# ---------------------------------------------------------------------------------------------------------
# 지수, ETF/ETN, 신주인수권증권/증서: one row per product per trading day of the published window, built with
# numpy over (product, day) matrices. Every API is basDd-based; a day with no row answers {"OutBlock_1": []}.

_INDEX_ENTITIES = {"BAS_DD": "trading_date"}


def _closes(ctx: WorldContext):
    """The shared price table's closing prices as a (stock, day) matrix, without building the table.

    The very series 주식 일별매매 answers (sim.world.prices), so the indices and warrants agree with it;
    tests/test_finance_breadth.py checks it.
    """
    stocks = listed(ctx)
    window = ctx.n(60, 90)
    shown = ctx.trading_days[-window:]
    first = day_index(yyyymmdd(shown[0]))
    assert first is not None
    # one extra day in front: the first 전일 종가
    close = np.array([series(ctx, c)[0, first - 1 : first + window] for c in stocks], dtype=np.int64)
    return stocks, shown, close


def _fmt(values: np.ndarray, decimals: int) -> np.ndarray:
    return np.char.mod(f"%.{decimals}f", values) if decimals else values.astype(np.int64).astype(str)


def _daily_rows(days: list[dt.date], per_day: dict[str, np.ndarray], static: dict[str, list[str]]) -> dict:
    """(product, day) matrices → columns, newest day first and products in their order within a day."""
    n_prod = len(next(iter(static.values())))
    order = list(range(len(days) - 1, -1, -1))
    cols: dict[str, list] = {"BAS_DD": [yyyymmdd(days[d]) for d in order for _ in range(n_prod)]}
    for name, values in static.items():
        cols[name] = list(values) * len(days)
    for name, matrix in per_day.items():
        cols[name] = matrix[:, order].T.reshape(-1).tolist()
    return cols


_INDICES = (
    # IDX_CLSS, IDX_NM, market it follows, base level, beta, share of that market's capitalisation
    ("KOSPI", "코스피", "KOSPI", 2500.0, 1.0, 1.0), ("KOSPI", "코스피 200", "KOSPI", 330.0, 1.05, 0.85),
    ("KOSPI", "코스피 100", "KOSPI", 2500.0, 1.05, 0.75), ("KOSPI", "코스피 50", "KOSPI", 2300.0, 1.08, 0.65),
    ("KOSPI", "코스피 대형주", "KOSPI", 2450.0, 1.04, 0.8), ("KOSPI", "코스피 중형주", "KOSPI", 2700.0, 0.95, 0.12),
    ("KOSPI", "코스피 소형주", "KOSPI", 2100.0, 0.9, 0.05), ("KOSPI", "전기·전자", "KOSPI", 22000.0, 1.2, 0.3),
    ("KOSPI", "화학", "KOSPI", 4800.0, 0.9, 0.08), ("KOSPI", "금융", "KOSPI", 500.0, 0.7, 0.1),
    ("KOSDAQ", "코스닥", "KOSDAQ", 800.0, 1.0, 1.0), ("KOSDAQ", "코스닥 150", "KOSDAQ", 1350.0, 1.1, 0.5),
    ("KOSDAQ", "코스닥 대형주", "KOSDAQ", 1900.0, 1.1, 0.55), ("KOSDAQ", "코스닥 중형주", "KOSDAQ", 750.0, 0.95, 0.25),
    ("KOSDAQ", "코스닥 소형주", "KOSDAQ", 2600.0, 0.9, 0.15), ("KOSDAQ", "제조", "KOSDAQ", 2300.0, 1.0, 0.4),
    ("KRX", "KRX 300", "ALL", 1500.0, 1.0, 0.9), ("KRX", "KRX 100", "ALL", 5200.0, 1.05, 0.7),
    ("KRX", "KTOP 30", "ALL", 10500.0, 1.1, 0.5), ("KRX", "KRX 헬스케어", "ALL", 3900.0, 1.3, 0.08),
)


def _horizon() -> int:
    return len(calendar()[0])


def _days_before_today(ctx: WorldContext) -> int:
    return len(trading_days(ctx.today))


def _spreads(seed: int, name: str, amplitude: float) -> np.ndarray:
    """(3, horizon) uniform spreads for open/high/low from a stream named by the product: the same draws
    whatever the world's today (each row a fixed stretch of one sequential draw)."""
    return stream(seed, "krx-spread", name).uniform(0, amplitude, 3 * _horizon()).reshape(3, _horizon())


def _ohlc_series(close: np.ndarray, spread: np.ndarray, amplitude: float = 0.012) -> dict[str, np.ndarray]:
    """Close, change, rate, open/high/low of (product, day) levels over the calendar; the first day's 전일
    is itself."""
    prev = np.concatenate([close[:, :1], close[:, :-1]], axis=1)
    open_ = prev * (1 + spread[0] - amplitude / 2)
    high = np.maximum(np.maximum(open_, close), close * (1 + spread[1]))
    low = np.minimum(np.minimum(open_, close), close * (1 - spread[2]))
    return {"close": close, "chg": close - prev, "rate": (close - prev) / prev * 100, "open": open_, "high": high,
            "low": low}


def _index_core(ctx: WorldContext) -> dict[str, np.ndarray]:
    """Every index over every published day from 2010: each follows its market's capitalisation (the shared
    stock series) to its own beta, anchored on 2025-01-02, so any day is a slice of these rows."""
    if "krx_index_core" in ctx._cache:
        return ctx._cache["krx_index_core"]
    n = _days_before_today(ctx)
    caps = {"KOSPI": np.zeros(n), "KOSDAQ": np.zeros(n)}
    for c in listed(ctx):
        if c.market in caps:
            caps[c.market] += series(ctx, c)[0].astype(float) * c.list_shrs
    caps["ALL"] = caps["KOSPI"] + caps["KOSDAQ"]
    anchor = day_index(yyyymmdd(ANCHOR_DAY))
    levels = np.array([base * (caps[m] / caps[m][anchor]) ** beta for _c, _n, m, base, beta, _s in _INDICES])
    mktcap = np.array([caps[m] * share for _c, _n, m, _b, _beta, share in _INDICES])
    spread = np.stack([_spreads(ctx.seed, f"index:{i[1]}", 0.012)[:, :n] for i in _INDICES], axis=1)
    volume = np.array([stream(ctx.seed, "krx-index-volume", i[1]).lognormal(19, 0.6, _horizon())[:n]
                       for i in _INDICES]) * mktcap / mktcap[:, anchor].max()
    core = {**_ohlc_series(levels, spread), "vol": volume, "mktcap": mktcap}
    ctx._cache["krx_index_core"] = core
    return core


def _index_rows(ctx: WorldContext, days: list[int]) -> TableData:
    """krx_index_daily's rows for the given calendar positions (ascending)."""
    k = {name: m[:, days] for name, m in _index_core(ctx).items()}
    per_day = {"CLSPRC_IDX": _fmt(k["close"], 2), "CMPPREVDD_IDX": _fmt(k["chg"], 2), "FLUC_RT": _fmt(k["rate"], 2),
               "OPNPRC_IDX": _fmt(k["open"], 2), "HGPRC_IDX": _fmt(k["high"], 2), "LWPRC_IDX": _fmt(k["low"], 2),
               "ACC_TRDVOL": _fmt(k["vol"], 0), "ACC_TRDVAL": _fmt(k["vol"] * 12_000, 0), "MKTCAP": _fmt(k["mktcap"], 0)}
    cols = _daily_rows(_dates(days), per_day, {"IDX_CLSS": [i[0] for i in _INDICES], "IDX_NM": [i[1] for i in _INDICES]})
    return TableData("krx_index_daily", cols, entities={**_INDEX_ENTITIES, "IDX_NM": "index_name"})


def _dates(days: list[int]) -> list[dt.date]:
    published = calendar()[0]
    return [dt.datetime.strptime(published[d], "%Y%m%d").date() for d in days]


def _window(ctx: WorldContext) -> list[int]:
    """The stored sample's days: the last weeks before today."""
    n = _days_before_today(ctx)
    return list(range(max(0, n - ctx.n(60, 90)), n))


def _index_table(ctx: WorldContext) -> TableData:
    return _index_rows(ctx, _window(ctx))


_ETF_BRANDS = ("KODEX", "TIGER", "RISE", "ACE", "SOL", "HANARO", "PLUS")
_ETF_TARGETS = (("200", "코스피 200"), ("코스닥150", "코스닥 150"), ("반도체", "KRX 반도체"), ("2차전지산업", "KRX 2차전지"),
                ("미국S&P500", "S&P 500"), ("국고채3년", "KIS 국고채 3년"), ("골드선물(H)", "S&P GSCI Gold"),
                ("인버스", "코스피 200 선물지수"), ("레버리지", "코스피 200 선물지수"), ("고배당", "코스피 고배당 50"))
_ETN_NAMES = ("레버리지 WTI원유 선물 ETN", "인버스 2X 천연가스 선물 ETN", "KOSPI 200 ETN", "구리 선물 ETN(H)",
              "미국 달러 선물 ETN")
_ETN_ISSUERS = ("신한", "삼성", "미래에셋", "한투", "KB", "메리츠")


def _product_core(ctx: WorldContext, kind: str) -> dict:
    """ETFs (codes ending in 5) and ETNs (5xxxx3): neither can collide with a stock code (those end in 0).
    Their lists are drawn once; each product's price over every published day from 2010 follows its tracked
    index (코스피 200 / 코스닥 150 follow ours, the rest walk on streams named by the product), anchored on
    2025-01-02."""
    key = f"krx_{kind}_core"
    if key in ctx._cache:
        return ctx._cache[key]
    rng = ctx.rng("krx", kind)
    levels = _index_core(ctx)["close"]
    n_days = levels.shape[1]
    anchor = day_index(yyyymmdd(ANCHOR_DAY))
    assert anchor is not None
    etf = kind == "etf"
    n = ctx.n(30, 250) if etf else ctx.n(10, 80)
    drawn = rng.choice(np.arange(1000, 49999), size=n, replace=False)
    codes = [f"{int(x) * 10 + 5:06d}" if etf else f"5{int(x) % 10000 * 10 + 3:05d}" for x in np.sort(drawn)]
    picks = rng.integers(0, len(_ETF_TARGETS) if etf else len(_ETN_NAMES), n)
    if etf:
        names = [f"{_pick(rng, _ETF_BRANDS)} {_ETF_TARGETS[p][0]}" for p in picks]
        targets = [_ETF_TARGETS[p][1] for p in picks]
    else:
        names = [f"{_pick(rng, _ETN_ISSUERS)} {_ETN_NAMES[p]}" for p in picks]
        targets = [_ETN_NAMES[p].removesuffix(" ETN").removesuffix(" ETN(H)") for p in picks]
    names = [f"{name} {i}" if names.index(name) != i else name for i, name in enumerate(names)]
    start = rng.uniform(0.5, 3, size=(n, 1))
    shares = rng.integers(200_000, 80_000_000, size=(n, 1)).astype(float)
    own = {"코스피 200": levels[1], "코스닥 150": levels[11]}
    walk = np.array([np.exp(np.cumsum(stream(ctx.seed, f"krx-{kind}-walk", c).normal(0, 0.012, _horizon())))[:n_days]
                     for c in codes])
    obj = np.array([own[t] if t in own else 1000 * w for t, w in zip(targets, walk, strict=True)])
    gear = np.array([-1.0 if "인버스" in nm else (2.0 if "레버리지" in nm else 1.0) for nm in names])
    price = np.maximum(5, 10_000 * start * (obj / obj[:, anchor : anchor + 1]) ** gear[:, None])
    spread = np.stack([_spreads(ctx.seed, f"{kind}:{c}", 0.012)[:, :n_days] for c in codes], axis=1)
    k = _ohlc_series(np.round(price / 5) * 5, spread)
    vol = np.array([stream(ctx.seed, f"krx-{kind}-volume", c).lognormal(11, 1.3, _horizon())[:n_days] for c in codes])
    nav = k["close"] * (1 + np.array([stream(ctx.seed, f"krx-{kind}-nav", c).normal(0, 0.002, _horizon())[:n_days]
                                      for c in codes]))
    core = {"codes": codes, "names": names, "targets": targets, "shares": shares, "obj": obj, "vol": vol, "nav": nav,
            **k}
    ctx._cache[key] = core
    return core


def _product_rows(ctx: WorldContext, kind: str, days: list[int]) -> TableData:
    """krx_etf_daily / krx_etn_daily rows for the given calendar positions (ascending)."""
    core = _product_core(ctx, kind)
    etf = kind == "etf"
    k = {name: core[name][:, days] for name in ("close", "chg", "rate", "open", "high", "low", "vol", "nav")}
    shares = core["shares"] * np.ones_like(k["close"])
    idx_now = core["obj"][:, days]
    idx_prev = core["obj"][:, [max(0, d - 1) for d in days]]
    per_day = {"TDD_CLSPRC": _fmt(k["close"], 0), "CMPPREVDD_PRC": _fmt(k["chg"], 0), "FLUC_RT": _fmt(k["rate"], 2)}
    per_day["NAV" if etf else "PER1SECU_INDIC_VAL"] = _fmt(k["nav"], 2)
    per_day.update({"TDD_OPNPRC": _fmt(np.round(k["open"] / 5) * 5, 0), "TDD_HGPRC": _fmt(np.round(k["high"] / 5) * 5, 0),
                    "TDD_LWPRC": _fmt(np.round(k["low"] / 5) * 5, 0), "ACC_TRDVOL": _fmt(k["vol"], 0),
                    "ACC_TRDVAL": _fmt(k["vol"] * k["close"], 0), "MKTCAP": _fmt(k["close"] * shares, 0)})
    per_day["INVSTASST_NETASST_TOTAMT" if etf else "INDIC_VAL_AMT"] = _fmt(k["nav"] * shares, 0)
    per_day.update({"LIST_SHRS": _fmt(shares, 0), "OBJ_STKPRC_IDX": _fmt(idx_now, 2),
                    "CMPPREVDD_IDX": _fmt(idx_now - idx_prev, 2),
                    "FLUC_RT_IDX": _fmt((idx_now - idx_prev) / idx_prev * 100, 2)})
    cols = _daily_rows(_dates(days), per_day, {"ISU_CD": core["codes"], "ISU_NM": core["names"],
                                               "IDX_IND_NM": core["targets"]})
    return TableData(f"krx_{kind}_daily", cols, entities={**_INDEX_ENTITIES, "ISU_CD": f"{kind}_code"})


def _products(ctx: WorldContext, kind: str) -> TableData:
    return _product_rows(ctx, kind, _window(ctx))


class DailyHistory:
    """지수 and ETF/ETN 일별매매정보 for any trading day from 2010: one day's rows sliced from the series."""

    def __init__(self, name: str, rows) -> None:
        self.name = name
        self._rows = rows

    def scope(self, ctx: WorldContext, args: dict[str, str]):
        i = day_index(args["basDd"])
        return i if i is not None and i < _days_before_today(ctx) else -1

    def generate(self, ctx: WorldContext, day: int) -> TableData:
        if day < 0:  # a holiday, a weekend, before 2010 or not yet published: no rows, as the gateway answers
            return self._rows(ctx, [])
        return self._rows(ctx, [day])


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def _ymd(ko: str) -> str:
    """'2026년 03월 01일' (as DART writes dates) → '20260301'."""
    return "".join(ch for ch in ko if ch.isdigit())


_SW_FIELDS = ("BAS_DD", "MKT_NM", "ISU_CD", "ISU_NM", "TDD_CLSPRC", "CMPPREVDD_PRC", "FLUC_RT", "TDD_OPNPRC",
              "TDD_HGPRC", "TDD_LWPRC", "ACC_TRDVOL", "ACC_TRDVAL", "MKTCAP", "LIST_SHRS")


def _rights(ctx: WorldContext, kind: str) -> TableData:
    """신주인수권증권 (sw) come from DART 신주인수권부사채 decisions with 분리형 warrants, listed from the payment
    date to the end of the exercise period; 신주인수권증서 (sr) from 주주배정 유상증자 decisions, listed for five
    trading days about a month after the decision. TARSTK_ISU_SRT_CD is the issuer's stock_code."""
    # The DART events are this world's truth of who issued what.
    from sim.platforms.dart.api import _major_events

    events = next(t for t in _major_events(ctx) if t.name == ("dart_major_bdwtIsDecsn" if kind == "sw"
                                                                 else "dart_major_piicDecsn")).columns
    listed, shown, close = _closes(ctx)
    row_of = {c.stock_code: i for i, c in enumerate(listed)}
    by_code = {c.corp_code: c for c in listed}
    shown_dd = [yyyymmdd(d) for d in shown]
    rng = ctx.rng("krx", kind)
    cols: dict[str, list] = {k: [] for k in (*_SW_FIELDS, "EXER_PRC", "EXST_STRT_DD", "EXST_END_DD", "ISU_PRC",
                                                "DELIST_DD", "TARSTK_ISU_SRT_CD", "TARSTK_ISU_NM",
                                                "TARSTK_ISU_PRSNT_PRC")}
    seen: dict[str, int] = {}
    for i, corp_code in enumerate(events["corp_code"]):
        c = by_code.get(corp_code)
        if c is None:
            continue
        if kind == "sw":
            if events["bdwt_div_atn"][i] != "분리" or "-" in (events["ex_prc"][i], events["expd_edd"][i]):
                continue
            start, end = _ymd(events["pymd"][i]) if events["pymd"][i] != "-" else events["rcept_dt"][i], \
                _ymd(events["expd_edd"][i])
            strike = int(events["ex_prc"][i].replace(",", ""))
        else:
            if "주주배정" not in events["ic_mthn"][i]:
                continue
            first = next((j for j, d in enumerate(shown_dd) if d > events["rcept_dt"][i]), None)
            if first is None or first + 7 >= len(shown_dd):
                continue
            start, end = shown_dd[first + 3], shown_dd[first + 7]
            strike = 0
        days = [j for j, d in enumerate(shown_dd) if start <= d <= end]
        if not days:
            continue
        s = row_of[c.stock_code]
        n = seen[c.stock_code] = seen.get(c.stock_code, -1) + 1
        code = f"{c.stock_code[:4]}{n % 10}{7 if kind == 'sw' else 6}"  # ends in 7/6: never a stock code
        issue_price = int(close[s, days[0]] * 0.8) // 5 * 5
        units = int(c.list_shrs * rng.uniform(0.01, 0.1))
        for j in sorted(days, reverse=True):
            target = int(close[s, j + 1])
            intrinsic = max(target - (strike or issue_price), 0)
            px = max(5, int((intrinsic + target * rng.uniform(0.02, 0.08)) // 5 * 5))
            vol = int(rng.lognormal(9, 1.2))
            row = (shown_dd[j], c.market, code, f"{c.corp_name}{n + 1 if kind == 'sw' else ''}WR" if kind == "sw"
                   else f"{c.corp_name} {n + 1}R", str(px), str(int(px * rng.uniform(-0.05, 0.05))),
                   f"{rng.uniform(-5, 5):.2f}", str(px), str(int(px * 1.03) // 5 * 5), str(int(px * 0.97) // 5 * 5),
                   str(vol), str(vol * px), str(px * units), str(units))
            for k, v in zip(_SW_FIELDS, row, strict=True):
                cols[k].append(v)
            cols["EXER_PRC"].append(f"{strike}" if kind == "sw" else "")
            cols["EXST_STRT_DD"].append(start if kind == "sw" else "")
            cols["EXST_END_DD"].append(end if kind == "sw" else "")
            cols["ISU_PRC"].append("" if kind == "sw" else str(issue_price))
            cols["DELIST_DD"].append("" if kind == "sw" else end)
            cols["TARSTK_ISU_SRT_CD"].append(c.stock_code)
            cols["TARSTK_ISU_NM"].append(c.corp_name)
            cols["TARSTK_ISU_PRSNT_PRC"].append(str(target))
    order = sorted(range(len(cols["BAS_DD"])), key=lambda r: (-int(cols["BAS_DD"][r]), cols["ISU_CD"][r]))
    cols = {k: [v[r] for r in order] for k, v in cols.items()}
    return TableData(f"krx_{kind}_daily", cols, entities={"BAS_DD": "trading_date", "TARSTK_ISU_SRT_CD": "stock_code",
                                                        "TARSTK_ISU_NM": "stock_name"})


def _daily(api: str, table: str, fields: tuple[str, ...], fixed: tuple[Cond, ...] = (), history=None) -> Endpoint:
    return Endpoint("krx", HOST, api, table, binds={"basDd": Bind.day("BAS_DD")}, required=("basDd",),
                    fields=fields, fixed=fixed, history=history)


_INDEX_HISTORY = DailyHistory("krx_index_daily", _index_rows)


_IDX_FIELDS = ("BAS_DD", "IDX_CLSS", "IDX_NM", "CLSPRC_IDX", "CMPPREVDD_IDX", "FLUC_RT", "OPNPRC_IDX", "HGPRC_IDX",
               "LWPRC_IDX", "ACC_TRDVOL", "ACC_TRDVAL", "MKTCAP")
_ETP_TAIL = ("TDD_OPNPRC", "TDD_HGPRC", "TDD_LWPRC", "ACC_TRDVOL", "ACC_TRDVAL", "MKTCAP")
_IDX_TAIL = ("LIST_SHRS", "IDX_IND_NM", "OBJ_STKPRC_IDX", "CMPPREVDD_IDX", "FLUC_RT_IDX")
_ETF_FIELDS = ("BAS_DD", "ISU_CD", "ISU_NM", "TDD_CLSPRC", "CMPPREVDD_PRC", "FLUC_RT", "NAV", *_ETP_TAIL,
               "INVSTASST_NETASST_TOTAMT", *_IDX_TAIL)
_ETN_FIELDS = ("BAS_DD", "ISU_CD", "ISU_NM", "TDD_CLSPRC", "CMPPREVDD_PRC", "FLUC_RT", "PER1SECU_INDIC_VAL",
               *_ETP_TAIL, "INDIC_VAL_AMT", *_IDX_TAIL)
_TARGET = ("TARSTK_ISU_SRT_CD", "TARSTK_ISU_NM", "TARSTK_ISU_PRSNT_PRC")

ENDPOINTS += [
    _daily("idx/kospi_dd_trd", "krx_index_daily", _IDX_FIELDS, (Cond("IDX_CLSS", "eq", "KOSPI"),), _INDEX_HISTORY),
    _daily("idx/kosdaq_dd_trd", "krx_index_daily", _IDX_FIELDS, (Cond("IDX_CLSS", "eq", "KOSDAQ"),), _INDEX_HISTORY),
    _daily("idx/krx_dd_trd", "krx_index_daily", _IDX_FIELDS, (Cond("IDX_CLSS", "eq", "KRX"),), _INDEX_HISTORY),
    _daily("etp/etf_bydd_trd", "krx_etf_daily", _ETF_FIELDS,
           history=DailyHistory("krx_etf_daily", lambda ctx, days: _product_rows(ctx, "etf", days))),
    _daily("etp/etn_bydd_trd", "krx_etn_daily", _ETN_FIELDS,
           history=DailyHistory("krx_etn_daily", lambda ctx, days: _product_rows(ctx, "etn", days))),
    _daily("sto/sw_bydd_trd", "krx_sw_daily", (*_SW_FIELDS, "EXER_PRC", "EXST_STRT_DD", "EXST_END_DD", *_TARGET)),
    _daily("sto/sr_bydd_trd", "krx_sr_daily", (*_SW_FIELDS, "ISU_PRC", "DELIST_DD", *_TARGET)),
]
