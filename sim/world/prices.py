"""Daily stock prices of listed companies, shared by KRX and 금융위원회 endpoints.

One table, newest day first, then by 단축코드, as the 금융위 API orders them.
"""

from __future__ import annotations

import numpy as np

from sim.world.context import WorldContext, yyyymmdd
from sim.world.table import TableData


def price_table(ctx: WorldContext) -> TableData:
    """Memoised per world: KRX and 금융위 endpoints read the same table."""
    if "price_table" not in ctx._cache:
        ctx._cache["price_table"] = _build_price_table(ctx)
    return ctx._cache["price_table"]


def _build_price_table(ctx: WorldContext) -> TableData:
    listed = [c for c in ctx.companies if c.stock_code]
    listed.sort(key=lambda c: c.stock_code)
    days = ctx.trading_days
    window = ctx.n(60, 90)
    shown = days[-window:]
    n_stocks, n_days = len(listed), len(days)
    rng = ctx.rng("prices")
    # A geometric random walk over the whole history; only the last `window` days are published.
    returns = rng.normal(0.0003, 0.022, size=(n_stocks, n_days))
    base = np.array([c.base_price for c in listed], dtype=float)
    close = base[:, None] * np.exp(np.cumsum(returns, axis=1))
    close = np.maximum(5, np.round(close / 5) * 5).astype(np.int64)
    prev = np.concatenate([base[:, None].astype(np.int64), close[:, :-1]], axis=1)
    spread = rng.uniform(0.0, 0.03, size=(n_stocks, n_days, 3))
    open_ = np.maximum(5, np.round(prev * (1 + (spread[..., 0] - 0.015)) / 5) * 5).astype(np.int64)
    high = np.maximum(np.maximum(open_, close), np.round(close * (1 + spread[..., 1]) / 5) * 5).astype(np.int64)
    low = np.minimum(np.minimum(open_, close), np.round(close * (1 - spread[..., 2]) / 5) * 5).astype(np.int64)
    volume = rng.lognormal(11, 1.2, size=(n_stocks, n_days)).astype(np.int64) + 100
    shares = np.array([c.list_shrs for c in listed], dtype=np.int64)

    cols: dict[str, list] = {k: [] for k in (
        "basDt", "srtnCd", "isinCd", "itmsNm", "mrktCtg", "clpr", "vs", "fltRt", "mkp", "hipr", "lopr",
        "trqu", "trPrc", "lstgStCnt", "mrktTotAmt")}
    first = n_days - len(shown)
    for d in range(n_days - 1, first - 1, -1):
        day = yyyymmdd(days[d])
        for s, company in enumerate(listed):
            c, p = int(close[s, d]), int(prev[s, d])
            cols["basDt"].append(day)
            cols["srtnCd"].append(company.stock_code)
            cols["isinCd"].append(company.isin)
            cols["itmsNm"].append(company.corp_name)
            cols["mrktCtg"].append(company.market)
            cols["clpr"].append(c)
            cols["vs"].append(c - p)
            cols["fltRt"].append(f"{(c - p) / p * 100:.2f}")
            cols["mkp"].append(int(open_[s, d]))
            cols["hipr"].append(int(high[s, d]))
            cols["lopr"].append(int(low[s, d]))
            cols["trqu"].append(int(volume[s, d]))
            cols["trPrc"].append(int(volume[s, d]) * c)
            cols["lstgStCnt"].append(int(shares[s]))
            cols["mrktTotAmt"].append(int(shares[s]) * c)
    return TableData(
        "stock_daily_price",
        cols,
        entities={"basDt": "trading_date", "srtnCd": "stock_code", "isinCd": "isin", "itmsNm": "stock_name",
                  "mrktCtg": "market"},
    )
