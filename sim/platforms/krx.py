"""KRX Open API (data-dbg.krx.co.kr): 일별매매정보 by market and 종목기본정보, over the shared price table."""

from __future__ import annotations

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
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
        )
    ]


def _trade(api: str, market: str) -> Endpoint:
    return Endpoint("krx", HOST, api, "stock_daily_price",
                    binds={"basDd": Bind("basDt", pattern=r"\d{8}")}, required=("basDd",),
                    columns=_TRADE, fixed=(Cond("mrktCtg", "eq", market),))


def _base(api: str, market: str) -> Endpoint:
    return Endpoint("krx", HOST, api, "krx_issue_base",
                    binds={"basDd": Bind("list_dd", "le", r"\d{8}")}, required=("basDd",),
                    columns=_BASE, fixed=(Cond("market", "eq", market),))


ENDPOINTS = [
    _trade("sto/stk_bydd_trd", "KOSPI"),
    _trade("sto/ksq_bydd_trd", "KOSDAQ"),
    _trade("sto/knx_bydd_trd", "KONEX"),
    _base("sto/stk_isu_base_info", "KOSPI"),
    _base("sto/ksq_isu_base_info", "KOSDAQ"),
    _base("sto/knx_isu_base_info", "KONEX"),
]
