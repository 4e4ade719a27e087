"""DART 전자공시 (opendart.fss.or.kr): corp codes, 기업개황, 공시검색, 전환사채 발행결정, 주요계정."""

from __future__ import annotations

import datetime as dt

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import person_names
from sim.world.table import TableData

HOST = "opendart.fss.or.kr"
CORP_CODE = r"\d{8}"
DATE = r"\d{8}"


def _rcept_no(day: dt.date, serial: int) -> str:
    return f"{yyyymmdd(day)}{80_0000 + serial % 200_000:06d}"


def tables(ctx: WorldContext) -> list[TableData]:
    companies = ctx.companies
    corp = TableData(
        "dart_corp",
        {
            "corp_code": [c.corp_code for c in companies],
            "corp_name": [c.corp_name for c in companies],
            "corp_eng_name": [c.corp_eng_name for c in companies],
            "stock_code": [c.stock_code or " " for c in companies],
            "modify_date": [c.modify_date for c in companies],
            "corp_name_eng": [c.corp_eng_name for c in companies],
            "stock_name": [c.corp_name if c.stock_code else "" for c in companies],
            "ceo_nm": [c.ceo_nm for c in companies],
            "corp_cls": [c.corp_cls for c in companies],
            "jurir_no": [c.jurir_no for c in companies],
            "bizr_no": [c.bizr_no for c in companies],
            "adres": [c.adres for c in companies],
            "hm_url": [f"www.{c.corp_code}.co.kr" for c in companies],
            "ir_url": ["" for _ in companies],
            "phn_no": [f"02-{c.corp_code[2:5]}-{c.corp_code[4:8]}" for c in companies],
            "fax_no": [f"02-{c.corp_code[2:5]}-{int(c.corp_code[4:8]) + 1:04d}" for c in companies],
            "induty_code": [c.induty_code for c in companies],
            "est_dt": [c.est_dt for c in companies],
            "acc_mt": [c.acc_mt for c in companies],
        },
        entities={"corp_code": "corp_code", "corp_name": "corp_name", "stock_code": "stock_code",
                  "jurir_no": "jurir_no", "bizr_no": "bizr_no", "stock_name": "stock_name"},
    )
    return [corp, _convertible_bonds(ctx), _disclosures(ctx), _accounts(ctx)]


def _convertible_bonds(ctx: WorldContext) -> TableData:
    rng = ctx.rng("dart", "cvbd")
    listed = [c for c in ctx.companies if c.stock_code]
    issuers = [listed[0]] + [c for c in listed[1:] if rng.random() < 0.12]
    cols: dict[str, list] = {}
    managers = person_names(ctx.rng("dart", "cvbd-names"), len(issuers) * 2)
    for i, c in enumerate(issuers):
        n_events = 1 if i == 0 else int(rng.integers(1, 3))
        for k in range(n_events):
            if i == 0 and k == 0:
                day = dt.date(2026, 1, 12)  # the paper's worked example: 2026년 1월 라이트론 전환사채
            else:
                day = ctx.today - dt.timedelta(days=int(rng.integers(3, 420)))
            while day.weekday() >= 5:
                day -= dt.timedelta(days=1)
            face = int(rng.choice([30, 50, 100, 150, 200, 300])) * 100_000_000
            price = max(500, int(round(c.base_price * rng.uniform(0.8, 1.3) / 5) * 5))
            floor = int(round(price * 0.7 / 5) * 5)
            row = {
                "rcept_no": _rcept_no(day, i * 7 + k),
                "corp_cls": c.corp_cls,
                "corp_code": c.corp_code,
                "corp_name": c.corp_name,
                "bd_tm": str(k + 1 + int(rng.integers(0, 8))),
                "bd_knd": "무기명식 이권부 무보증 사모 전환사채",
                "bd_fta": f"{face:,}",
                "atcsc_rmislmt": "-",
                "ovis_fta": "-",
                "fdpp_fclt": "-",
                "fdpp_bsninh": "-",
                "fdpp_op": f"{face // 2:,}",
                "fdpp_dtrp": "-",
                "fdpp_ocsa": f"{face - face // 2:,}",
                "fdpp_etc": "-",
                "bd_intr_ex": f"{int(rng.integers(0, 4))}.0",
                "bd_intr_sf": f"{int(rng.integers(1, 7))}.0",
                "bd_mtd": yyyymmdd(day.replace(year=day.year + 3)),
                "bdis_mthn": "사모",
                "cv_rt": "100",
                "cv_prc": f"{price:,}",
                "cvisstk_knd": "기명식 보통주",
                "cvisstk_cnt": f"{face // price:,}",
                "cvisstk_tisstk_vs": f"{face / price / max(c.list_shrs, 1) * 100:.2f}",
                "cvrqpd_bgd": yyyymmdd(day.replace(year=day.year + 1)),
                "cvrqpd_edd": yyyymmdd(day.replace(year=day.year + 3) - dt.timedelta(days=30)),
                "act_mktprcfl_cvprc_lwtrsprc": f"{floor:,}",
                "act_mktprcfl_cvprc_lwtrsprc_bs": "전환가액의 70%",
                "rmislmt_lt70p": "-",
                "sbd": yyyymmdd(day + dt.timedelta(days=7)),
                "pymd": yyyymmdd(day + dt.timedelta(days=7)),
                "rpmcmp": f"{managers[2 * i]}투자조합",
                "bddd": yyyymmdd(day),
                "od_a_at_t": "2",
                "od_a_at_b": "0",
                "adt_a_atn": "불참",
                "rcept_dt": yyyymmdd(day),
            }
            for key, value in row.items():
                cols.setdefault(key, []).append(value)
    return TableData("dart_cvbd", cols, entities={"corp_code": "corp_code", "corp_name": "corp_name",
                                                  "rcept_no": "rcept_no", "rcept_dt": "disclosure_date"})


_REPORTS = [
    ("A", "A001", "사업보고서 ({y}.12)", 3, 20),
    ("A", "A002", "반기보고서 ({y}.06)", 8, 14),
    ("A", "A003", "분기보고서 ({y}.03)", 5, 15),
    ("A", "A003", "분기보고서 ({y}.09)", 11, 14),
    ("B", "B001", "주요사항보고서(유상증자결정)", 0, 0),
    ("I", "I001", "수시공시의무관련사항(공정공시)", 0, 0),
    ("D", "D002", "임원ㆍ주요주주특정증권등소유상황보고서", 0, 0),
    ("E", "E001", "기타경영사항(자율공시)", 0, 0),
]


def _disclosures(ctx: WorldContext) -> TableData:
    rng = ctx.rng("dart", "list")
    rows = []
    serial = 0
    for c in ctx.companies:
        if not c.stock_code and rng.random() < 0.7:
            continue
        for ty, detail, title, month, day in _REPORTS:
            years = (2024, 2025) if month else (None,)
            for y in years:
                if month:
                    when = dt.date(y + (1 if month == 3 and "12" in title else 0), month, day)
                    if when >= ctx.today:
                        continue
                    repeat = 1
                else:
                    repeat = int(rng.poisson(1.2))
                for _ in range(repeat):
                    if not month:
                        when = ctx.today - dt.timedelta(days=int(rng.integers(1, 400)))
                    serial += 1
                    rows.append((yyyymmdd(when), c, ty, detail, title.format(y=y), serial))
    rows.extend(_cv_rows(ctx))
    rows.sort(key=lambda r: (r[0], r[5]), reverse=True)
    cols: dict[str, list] = {k: [] for k in ("corp_cls", "corp_name", "corp_code", "stock_code", "report_nm",
                                             "rcept_no", "flr_nm", "rcept_dt", "rm", "pblntf_ty",
                                             "pblntf_detail_ty")}
    for day, c, ty, detail, title, serial in rows:
        cols["corp_cls"].append(c.corp_cls)
        cols["corp_name"].append(c.corp_name)
        cols["corp_code"].append(c.corp_code)
        cols["stock_code"].append(c.stock_code)
        cols["report_nm"].append(title)
        cols["rcept_no"].append(f"{day}{serial % 1_000_000:06d}")
        cols["flr_nm"].append(c.corp_name)
        cols["rcept_dt"].append(day)
        cols["rm"].append("유" if ty == "A" else "")
        cols["pblntf_ty"].append(ty)
        cols["pblntf_detail_ty"].append(detail)
    return TableData("dart_disclosure", cols, entities={"corp_code": "corp_code", "corp_name": "corp_name",
                                                        "rcept_no": "rcept_no", "stock_code": "stock_code",
                                                        "rcept_dt": "disclosure_date"})


def _cv_rows(ctx: WorldContext):
    """Each 전환사채 발행결정 also appears in 공시검색, as 주요사항보고서."""
    cb = _convertible_bonds(ctx).columns
    by_code = {c.corp_code: c for c in ctx.companies}
    return [
        (day, by_code[code], "B", "B001", "주요사항보고서(전환사채권발행결정)", int(no[8:]))
        for day, code, no in zip(cb["rcept_dt"], cb["corp_code"], cb["rcept_no"], strict=True)
    ]


_ACCOUNTS = [("BS", "재무상태표", "자산총계"), ("BS", "재무상태표", "부채총계"), ("BS", "재무상태표", "자본총계"),
             ("IS", "손익계산서", "매출액"), ("IS", "손익계산서", "영업이익"), ("IS", "손익계산서", "당기순이익")]


def _accounts(ctx: WorldContext) -> TableData:
    rng = ctx.rng("dart", "accounts")
    cols: dict[str, list] = {}
    for c in ctx.companies:
        if not c.stock_code:
            continue
        scale = c.list_shrs * c.base_price
        for year in (2023, 2024):
            for fs_div, fs_nm in (("CFS", "연결재무제표"), ("OFS", "재무제표")):
                assets = int(scale * rng.uniform(0.4, 2.0))
                debt = int(assets * rng.uniform(0.2, 0.7))
                sales = int(assets * rng.uniform(0.3, 1.5))
                op = int(sales * rng.uniform(-0.1, 0.2))
                net = int(op * rng.uniform(0.5, 0.9))
                values = [assets, debt, assets - debt, sales, op, net]
                for order, ((sj_div, sj_nm, name), value) in enumerate(zip(_ACCOUNTS, values, strict=True)):
                    prev = int(value * rng.uniform(0.8, 1.2))
                    row = {
                        "rcept_no": f"{year + 1}0315{int(c.corp_code) % 1_000_000:06d}",
                        "bsns_year": str(year), "corp_code": c.corp_code, "stock_code": c.stock_code,
                        "reprt_code": "11011", "account_nm": name, "fs_div": fs_div, "fs_nm": fs_nm,
                        "sj_div": sj_div, "sj_nm": sj_nm, "thstrm_nm": f"제 {year - 1990} 기",
                        "thstrm_dt": f"{year}.12.31 현재" if sj_div == "BS" else f"{year}.01.01 ~ {year}.12.31",
                        "thstrm_amount": f"{value:,}", "frmtrm_nm": f"제 {year - 1991} 기",
                        "frmtrm_dt": f"{year - 1}.12.31 현재" if sj_div == "BS" else f"{year - 1}.01.01 ~ {year - 1}.12.31",
                        "frmtrm_amount": f"{prev:,}", "ord": str(order + 1), "currency": "KRW",
                    }
                    for k, v in row.items():
                        cols.setdefault(k, []).append(v)
    return TableData("dart_account", cols, entities={"corp_code": "corp_code", "stock_code": "stock_code",
                                                     "bsns_year": "business_year", "reprt_code": "report_code"})


_EVENT_FIELDS = tuple(k for k in (
    "rcept_no corp_cls corp_code corp_name bd_tm bd_knd bd_fta atcsc_rmislmt ovis_fta fdpp_fclt fdpp_bsninh "
    "fdpp_op fdpp_dtrp fdpp_ocsa fdpp_etc bd_intr_ex bd_intr_sf bd_mtd bdis_mthn cv_rt cv_prc cvisstk_knd "
    "cvisstk_cnt cvisstk_tisstk_vs cvrqpd_bgd cvrqpd_edd act_mktprcfl_cvprc_lwtrsprc "
    "act_mktprcfl_cvprc_lwtrsprc_bs rmislmt_lt70p sbd pymd rpmcmp bddd od_a_at_t od_a_at_b adt_a_atn"
).split())

ENDPOINTS = [
    Endpoint("dart", HOST, "corpCode", "dart_corp",
             fields=("corp_code", "corp_name", "corp_eng_name", "stock_code", "modify_date"),
             options={"zip": True}),
    Endpoint("dart", HOST, "company", "dart_corp",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE)}, required=("corp_code",),
             fields=("corp_name", "corp_name_eng", "stock_name", "stock_code", "ceo_nm", "corp_cls", "jurir_no",
                     "bizr_no", "adres", "hm_url", "ir_url", "phn_no", "fax_no", "induty_code", "est_dt",
                     "acc_mt", "corp_code"),
             options={"shape": "object"}),
    Endpoint("dart", HOST, "list", "dart_disclosure",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE),
                    "bgn_de": Bind("rcept_dt", "ge", DATE), "end_de": Bind("rcept_dt", "le", DATE),
                    "pblntf_ty": Bind("pblntf_ty", pattern="[A-J]"),
                    "pblntf_detail_ty": Bind("pblntf_detail_ty", pattern="[A-J][0-9]{3}"),
                    "corp_cls": Bind("corp_cls", pattern="[YKNE]")},
             fields=("corp_cls", "corp_name", "corp_code", "stock_code", "report_nm", "rcept_no", "flr_nm",
                     "rcept_dt", "rm"),
             options={"paged": True}),
    Endpoint("dart", HOST, "cvbdIsDecsn", "dart_cvbd",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE),
                    "bgn_de": Bind("rcept_dt", "ge", DATE), "end_de": Bind("rcept_dt", "le", DATE)},
             required=("corp_code", "bgn_de", "end_de"), fields=_EVENT_FIELDS),
    Endpoint("dart", HOST, "fnlttSinglAcnt", "dart_account",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE),
                    "bsns_year": Bind("bsns_year", pattern=r"20(1[5-9]|2\d)"),
                    "reprt_code": Bind("reprt_code", pattern="110(11|12|13|14)")},
             required=("corp_code", "bsns_year", "reprt_code")),
]
