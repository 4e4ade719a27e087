"""Daily stock prices of listed companies, shared by KRX and 금융위원회 endpoints.

The real services answer every trading day from 2010 (KRX Open API; 금융위 alike), so prices are not a
stored table: each stock's whole series is one geometric random walk drawn from streams named by its
단축코드, over a fixed calendar (2010-01-04 .. 2035-12-31) so a world with a later 'today' answers the past
days alike; a world shows the days before its 'today'. The walk is anchored so that the close on
2025-01-02 is the company's base price. `price_table` stores only the last weeks (a sample for the code that
reads tables); the endpoints generate any day on demand (`PriceHistory`).

Rows come newest day first, then by 단축코드, as the 금융위 API orders them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from sim.world.context import FIXED_HOLIDAYS, WorldContext, yyyymmdd
from sim.world.rng import stream
from sim.world.table import TableData

HISTORY_START = dt.date(2010, 1, 4)
_HORIZON_END = dt.date(2035, 12, 31)
ANCHOR_DAY = dt.date(2025, 1, 2)  # series are anchored here: a company's base price is its close
COLUMNS = ("basDt", "srtnCd", "isinCd", "itmsNm", "mrktCtg", "clpr", "vs", "fltRt", "mkp", "hipr", "lopr",
           "trqu", "trPrc", "lstgStCnt", "mrktTotAmt", "sect")
ENTITIES = {"basDt": "trading_date", "srtnCd": "stock_code", "isinCd": "isin", "itmsNm": "stock_name",
            "mrktCtg": "market"}


@lru_cache(maxsize=1)
def calendar() -> tuple[tuple[str, ...], dict[str, int]]:
    """Every trading day of the fixed horizon (weekdays less the fixed holidays) and its position."""
    days = []
    d = HISTORY_START
    while d <= _HORIZON_END:
        if d.weekday() < 5 and (d.month, d.day) not in FIXED_HOLIDAYS:
            days.append(yyyymmdd(d))
        d += dt.timedelta(days=1)
    return tuple(days), {day: i for i, day in enumerate(days)}


@lru_cache(maxsize=8)
def trading_days(today: dt.date) -> tuple[str, ...]:
    """The published trading days of a world: from 2010-01-04 up to the day before 'today'."""
    days, _ = calendar()
    cut = int(np.searchsorted(np.array(days), yyyymmdd(today)))
    return days[:cut]


def day_index(day: str) -> int | None:
    return calendar()[1].get(day)


@lru_cache(maxsize=1024)
def _series(seed: int, stock_code: str, base_price: int, shares: int, n: int) -> np.ndarray:
    """(5, n) int32: close, open, high, low, volume over the first n calendar days.

    Each component has its own stream and every draw is sequential, so the first n values are the same
    whatever n is: a later world extends a series without changing its past."""
    anchor = calendar()[1][yyyymmdd(ANCHOR_DAY)]
    m = max(n, anchor + 1)
    returns = stream(seed, "price-returns", stock_code).normal(0.0002, 0.018, m)
    spread = [stream(seed, f"price-spread-{part}", stock_code).uniform(0.0, 0.03, m) for part in ("o", "h", "l")]
    # about 0.3% of the listed shares trade on a day, varying by a factor of two or so
    volume = shares * 0.002 * stream(seed, "price-volume", stock_code).lognormal(0, 0.8, m)
    level = np.cumsum(returns)
    close = np.clip(np.round(base_price * np.exp(level - level[anchor]) / 5) * 5, 5, 2_000_000_000)
    prev = np.concatenate([close[:1], close[:-1]])
    open_ = np.maximum(5, np.round(prev * (1 + (spread[0] - 0.015)) / 5) * 5)
    high = np.maximum(np.maximum(open_, close), np.round(close * (1 + spread[1]) / 5) * 5)
    low = np.minimum(np.minimum(open_, close), np.round(close * (1 - spread[2]) / 5) * 5)
    out = np.stack([close, open_, high, low, np.minimum(volume, 2e9) + 100]).astype(np.int32)[:, :n]
    out.setflags(write=False)
    return out


def series(ctx: WorldContext, company) -> np.ndarray:
    """A listed company's published series: (5, trading days before 'today')."""
    return _series(ctx.seed, company.stock_code, company.base_price, company.list_shrs, len(trading_days(ctx.today)))


def listed(ctx: WorldContext) -> list:
    """Listed companies by 단축코드 (the service's order within a day)."""
    if "listed_by_code" not in ctx._cache:
        ctx._cache["listed_by_code"] = sorted((c for c in ctx.companies if c.stock_code), key=lambda c: c.stock_code)
    return ctx._cache["listed_by_code"]


def close_on(ctx: WorldContext, company, day: str) -> int | None:
    """The close of a trading day, None on a day without trading."""
    i = day_index(day)
    if i is None or day >= yyyymmdd(ctx.today):
        return None
    return int(series(ctx, company)[0, i])


def _record(company, day: str, s: np.ndarray, i: int) -> dict[str, Any]:
    c = int(s[0, i])
    p = int(s[0, i - 1]) if i else c
    shares = company.list_shrs
    return {"basDt": day, "srtnCd": company.stock_code, "isinCd": company.isin, "itmsNm": company.corp_name,
            "mrktCtg": company.market, "clpr": c, "vs": c - p, "fltRt": f"{(c - p) / p * 100:.2f}",
            "mkp": int(s[1, i]), "hipr": int(s[2, i]), "lopr": int(s[3, i]), "trqu": int(s[4, i]),
            "trPrc": int(s[4, i]) * c, "lstgStCnt": shares, "mrktTotAmt": shares * c, "sect": ""}


class PriceRows:
    """The rows of (days newest first) × (stocks by code), built only for the window a page shows:
    an unfiltered 금융위 query spans 16 years of every stock, and only its first page is rendered.
    Every day is a trading day (of `trading_days`), so each has its place in the calendar."""

    def __init__(self, ctx: WorldContext, days: Sequence[str], stocks: Sequence, start: int = 0,
                 stop: int | None = None) -> None:
        self.ctx, self.days, self.stocks = ctx, days, stocks
        total = len(days) * len(stocks)
        self.start = start
        self.stop = total if stop is None else stop
        self._cache: dict[int, dict[str, Any]] | None = None

    def __len__(self) -> int:
        return max(0, self.stop - self.start)

    def __getitem__(self, window: slice) -> PriceRows:
        lo, hi, step = window.indices(len(self))
        if step != 1:
            raise ValueError("price rows page with step 1 only")
        page = PriceRows(self.ctx, self.days, self.stocks, self.start + lo, self.start + max(lo, hi))
        page._cache = self._cache
        return page

    def records(self, names: Sequence[str], *, text: bool) -> list[dict[str, Any]]:
        n = len(self.stocks)
        out = []
        for k in range(self.start, self.stop):
            day, company = self.days[k // n], self.stocks[k % n]
            row = self._cache.get(k) if self._cache is not None else None
            if row is None:
                row = _record(company, day, series(self.ctx, company), calendar()[1][day])
            out.append({name: (str(row[name]) if text else row[name]) for name in names})
        return out

    def materialize(self) -> PriceRows:
        """Render every row once (for scopes of a few days: a KRX day is read whole, again and again)."""
        n = len(self.stocks)
        self._cache = {}
        for k in range(self.start, self.stop):
            company = self.stocks[k % n]
            day = self.days[k // n]
            self._cache[k] = _record(company, day, series(self.ctx, company), calendar()[1][day])
        return self


# (wire parameter, op or "attribute:op", value) for each day filter, then for each stock filter
_PriceScope = tuple[tuple[tuple[str, str, str], ...], tuple[tuple[str, str, str], ...]]


class PriceHistory:
    """Daily prices on demand. A request's conditions are all per day or per stock, so they narrow the
    calendar and the stock list first, and the answer is their product (no filter on a joined row)."""

    name = "stock_daily_price"

    def __init__(self, day_binds: dict[str, str], stock_binds: dict[str, str], fixed_market: str = "") -> None:
        self.day_binds = day_binds  # wire parameter -> op on basDt
        self.stock_binds = stock_binds  # wire parameter -> "attribute:op"
        self.fixed_market = fixed_market

    def scope(self, ctx: WorldContext, args: dict[str, str]) -> _PriceScope:
        days = tuple((p, op, args[p]) for p, op in self.day_binds.items() if args.get(p))
        stocks = tuple((p, spec, args[p]) for p, spec in self.stock_binds.items() if args.get(p))
        return days, stocks

    def generate(self, ctx: WorldContext, scope: _PriceScope) -> PriceRows:
        day_conds, stock_conds = scope
        days = list(trading_days(ctx.today))
        for _, op, value in day_conds:
            days = [d for d in days if _match(d, op, value)]
        stocks = [c for c in listed(ctx) if not self.fixed_market or c.market == self.fixed_market]
        for _, spec, value in stock_conds:
            attribute, op = spec.split(":")
            stocks = [c for c in stocks if _match(getattr(c, attribute), op, value)]
        rows = PriceRows(ctx, days[::-1], stocks)
        # A day of the whole market is read whole (KRX has no paging): render it once. A stock's 16 years
        # are read a page at a time: render only the page (kept whole, 180 stocks' would hold a gigabyte).
        return rows.materialize() if len(days) <= 5 and len(rows) <= 20_000 else rows


def _match(value: str, op: str, wanted: str) -> bool:
    if op == "eq":
        return value == wanted
    if op == "ge":
        return value >= wanted
    if op == "lt":
        return value < wanted
    if op == "le":
        return value <= wanted
    if op == "prefix":
        return value.startswith(wanted)
    if op == "contains":
        return wanted in value
    raise ValueError(op)


def price_table(ctx: WorldContext) -> TableData:
    """The stored sample: the last trading days, as the history answers them. Memoised per world."""
    if "price_table" not in ctx._cache:
        days = trading_days(ctx.today)[-ctx.n(20, 20):]
        rows = PriceRows(ctx, days[::-1], listed(ctx)).records(COLUMNS, text=False)
        cols = {k: [r[k] for r in rows] for k in COLUMNS}
        ctx._cache["price_table"] = TableData("stock_daily_price", cols, entities=dict(ENTITIES))
    return ctx._cache["price_table"]
