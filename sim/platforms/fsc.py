"""금융위원회_주식시세정보 on the data.go.kr gateway, over the shared price table."""

from __future__ import annotations

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.prices import price_table
from sim.world.table import TableData

HOST = "apis.data.go.kr"
DATE = r"\d{8}"


def tables(ctx: WorldContext) -> list[TableData]:
    table = price_table(ctx)
    # KRX trade rows carry 소속부 (SECT_TP_NM); keep it beside the price so one table serves both.
    table.columns["sect"] = ["" for _ in table.columns["basDt"]]
    return [table]


ENDPOINTS = [
    Endpoint("datagokr", HOST, "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo",
             "stock_daily_price",
             binds={"basDt": Bind("basDt", pattern=DATE), "beginBasDt": Bind("basDt", "ge", DATE),
                    "endBasDt": Bind("basDt", "lt", DATE), "likeBasDt": Bind("basDt", "prefix", r"\d{1,8}"),
                    "itmsNm": Bind("itmsNm"), "likeItmsNm": Bind("itmsNm", "contains"),
                    "likeSrtnCd": Bind("srtnCd", "prefix", r"\d{1,6}"), "isinCd": Bind("isinCd"),
                    "likeIsinCd": Bind("isinCd", "prefix"), "mrktCls": Bind("mrktCtg")},
             fields=("basDt", "srtnCd", "isinCd", "itmsNm", "mrktCtg", "clpr", "vs", "fltRt", "mkp", "hipr",
                     "lopr", "trqu", "trPrc", "lstgStCnt", "mrktTotAmt"),
             options={"format_param": "resultType", "ok_msg": "NORMAL SERVICE."}),
]
