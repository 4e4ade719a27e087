"""금융위원회_주식시세정보 on the data.go.kr gateway, over the shared price table."""

from __future__ import annotations

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.prices import PriceHistory, price_table
from sim.world.table import TableData

HOST = "apis.data.go.kr"


def tables(ctx: WorldContext) -> list[TableData]:
    # KRX trade rows carry 소속부 (SECT_TP_NM); the shared sample keeps it beside the price.
    return [price_table(ctx)]


# Every 금융위 filter is per day or per stock (sim.world.prices.PriceHistory narrows both, then joins).
HISTORY = PriceHistory(
    day_binds={"basDt": "eq", "beginBasDt": "ge", "endBasDt": "lt", "likeBasDt": "prefix"},
    stock_binds={"itmsNm": "corp_name:eq", "likeItmsNm": "corp_name:contains", "likeSrtnCd": "stock_code:prefix",
                 "isinCd": "isin:eq", "likeIsinCd": "isin:prefix", "mrktCls": "market:eq"})


ENDPOINTS = [
    Endpoint("datagokr", HOST, "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
             "stock_daily_price",
             binds={"basDt": Bind.day("basDt"), "beginBasDt": Bind.any_date("basDt", "ge"),
                    "endBasDt": Bind.any_date("basDt", "lt"), "likeBasDt": Bind("basDt", "prefix", r"\d{1,8}"),
                    "itmsNm": Bind("itmsNm"), "likeItmsNm": Bind("itmsNm", "contains"),
                    "likeSrtnCd": Bind("srtnCd", "prefix", r"\d{1,6}"), "isinCd": Bind("isinCd"),
                    "likeIsinCd": Bind("isinCd", "prefix"), "mrktCls": Bind("mrktCtg")},
             fields=("basDt", "srtnCd", "isinCd", "itmsNm", "mrktCtg", "clpr", "vs", "fltRt", "mkp", "hipr",
                     "lopr", "trqu", "trPrc", "lstgStCnt", "mrktTotAmt"),
             options={"format_param": "resultType", "ok_msg": "NORMAL SERVICE."}, history=HISTORY),
]
