"""DART 전자공시 (opendart.fss.or.kr): corp codes, 기업개황, 공시검색, 주요사항보고서 (전환사채 발행결정 and the
other DS005 APIs), 정기보고서 주요정보, 지분공시, 주요계정 and 전체 재무제표."""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint, SimError
from sim.platforms.dart.filings import ALL_FIELDS as _ALL_FIELDS
from sim.platforms.dart.filings import (
    KEY_FIELDS,
    OPTIONAL_ALL_FIELDS,
    OPTIONAL_KEY_FIELDS,
    REPORTS,
    AllAccountHistory,
    Filing,
    KeyAccountHistory,
    account_sample,
    annual,
    filing,
    filings,
    sample_filings,
)
from sim.world.companies import ANCHOR_COMPANIES, WELL_KNOWN, Company
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import person_names
from sim.world.prices import close_on
from sim.world.rng import stable_int, stream
from sim.world.table import TableData

HOST = "opendart.fss.or.kr"
CORP_CODE = r"\d{8}"


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
            "hm_url": [c.contact[0] or f"www.{c.corp_code}.co.kr" for c in companies],
            "ir_url": ["" for _ in companies],
            "phn_no": [c.contact[1] or f"02-{c.corp_code[2:5]}-{c.corp_code[4:8]}" for c in companies],
            "fax_no": [c.contact[2] or f"02-{c.corp_code[2:5]}-{int(c.corp_code[4:8]) + 1:04d}" for c in companies],
            "induty_code": [c.induty_code for c in companies],
            "est_dt": [c.est_dt for c in companies],
            "acc_mt": [c.acc_mt for c in companies],
        },
        entities={"corp_code": "corp_code", "corp_name": "corp_name", "stock_code": "stock_code",
                  "jurir_no": "jurir_no", "bizr_no": "bizr_no", "stock_name": "stock_name"},
    )
    return [corp, _convertible_bonds(ctx), _disclosures(ctx), *account_sample(ctx), *_major_events(ctx),
            *_periodic(ctx), *_ownership(ctx)]


def _memo(build):
    """Tables other tables derive from are built once per world (the context holds the cache)."""

    def wrapper(ctx: WorldContext) -> TableData:
        key = f"dart:{build.__name__}"
        if key not in ctx._cache:
            ctx._cache[key] = build(ctx)
        return ctx._cache[key]

    return wrapper


@_memo
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
            # 전환가액 is set near the market price at the board decision, as the 발행 rules require.
            reference = close_on(ctx, c, yyyymmdd(day)) or c.base_price
            price = max(500, int(round(reference * rng.uniform(0.95, 1.1) / 5) * 5))
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


# Other filings 공시검색 lists besides the periodic reports (filings.py), 주요사항보고서 (the event tables)
# and 지분공시 (the ownership tables), which come from their own tables so every API agrees on them.
_REPORTS = [
    ("B", "B001", "주요사항보고서(유상증자결정)"),
    ("I", "I001", "수시공시의무관련사항(공정공시)"),
    ("D", "D002", "임원ㆍ주요주주특정증권등소유상황보고서"),
    ("E", "E001", "기타경영사항(자율공시)"),
]


def _disclosures(ctx: WorldContext) -> TableData:
    rng = ctx.rng("dart", "list")
    rows = []
    serial = 0
    for c in ctx.companies:
        if not c.stock_code and rng.random() < 0.7:
            continue
        for ty, detail, title in _REPORTS:
            for _ in range(int(rng.poisson(1.2))):
                when = ctx.today - dt.timedelta(days=int(rng.integers(1, 400)))
                serial += 1
                if detail in ("B001", "D002"):
                    continue  # from the event and ownership tables below, so both APIs agree
                day = yyyymmdd(when)
                rows.append((day, c, ty, detail, title, f"{day}{serial % 500_000:06d}", c.corp_name))
    rows.extend((f.rcept_dt, f.company, "A", _DETAIL[f.reprt_code], f.report_nm, f.rcept_no, f.company.corp_name)
                for f in filings(ctx).values())
    rows.extend(_cv_rows(ctx))
    rows.extend(_major_list_rows(ctx))
    rows.extend(_ownership_list_rows(ctx))
    rows.sort(key=lambda r: (r[0], r[5]), reverse=True)
    cols: dict[str, list] = {k: [] for k in ("corp_cls", "corp_name", "corp_code", "stock_code", "report_nm",
                                             "rcept_no", "flr_nm", "rcept_dt", "rm", "pblntf_ty",
                                             "pblntf_detail_ty")}
    for day, c, ty, detail, title, rcept_no, filer in rows:
        cols["corp_cls"].append(c.corp_cls)
        cols["corp_name"].append(c.corp_name)
        cols["corp_code"].append(c.corp_code)
        cols["stock_code"].append(c.stock_code)
        cols["report_nm"].append(title)
        cols["rcept_no"].append(rcept_no)
        cols["flr_nm"].append(filer)
        cols["rcept_dt"].append(day)
        cols["rm"].append("유" if ty == "A" else "")
        cols["pblntf_ty"].append(ty)
        cols["pblntf_detail_ty"].append(detail)
    return TableData("dart_disclosure", cols, entities={"corp_code": "corp_code", "corp_name": "corp_name",
                                                        "rcept_no": "rcept_no", "stock_code": "stock_code",
                                                        "rcept_dt": "disclosure_date"})


_DETAIL = {"11011": "A001", "11012": "A002", "11013": "A003", "11014": "A003"}
assert set(_DETAIL) == set(REPORTS)


def _cv_rows(ctx: WorldContext):
    """Each 전환사채 발행결정 also appears in 공시검색, as 주요사항보고서."""
    cb = _convertible_bonds(ctx).columns
    by_code = {c.corp_code: c for c in ctx.companies}
    return [
        (day, by_code[code], "B", "B001", "주요사항보고서(전환사채권발행결정)", no, by_code[code].corp_name)
        for day, code, no in zip(cb["rcept_dt"], cb["corp_code"], cb["rcept_no"], strict=True)
    ]


_EVENT_FIELDS = tuple(k for k in ["rcept_no", "corp_cls", "corp_code", "corp_name", "bd_tm", "bd_knd", "bd_fta", "atcsc_rmislmt", "ovis_fta", "fdpp_fclt", "fdpp_bsninh", "fdpp_op", "fdpp_dtrp", "fdpp_ocsa", "fdpp_etc", "bd_intr_ex", "bd_intr_sf", "bd_mtd", "bdis_mthn", "cv_rt", "cv_prc", "cvisstk_knd", "cvisstk_cnt", "cvisstk_tisstk_vs", "cvrqpd_bgd", "cvrqpd_edd", "act_mktprcfl_cvprc_lwtrsprc", "act_mktprcfl_cvprc_lwtrsprc_bs", "rmislmt_lt70p", "sbd", "pymd", "rpmcmp", "bddd", "od_a_at_t", "od_a_at_b", "adt_a_atn"])

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
                    "bgn_de": Bind.any_date("rcept_dt", "ge"), "end_de": Bind.any_date("rcept_dt", "le"),
                    "pblntf_ty": Bind("pblntf_ty", pattern="[A-J]"),
                    "pblntf_detail_ty": Bind("pblntf_detail_ty", pattern="[A-J][0-9]{3}"),
                    "corp_cls": Bind("corp_cls", pattern="[YKNE]")},
             fields=("corp_cls", "corp_name", "corp_code", "stock_code", "report_nm", "rcept_no", "flr_nm",
                     "rcept_dt", "rm"),
             options={"paged": True}),
    Endpoint("dart", HOST, "cvbdIsDecsn", "dart_cvbd",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE),
                    "bgn_de": Bind.any_date("rcept_dt", "ge"), "end_de": Bind.any_date("rcept_dt", "le")},
             required=("corp_code", "bgn_de", "end_de"), fields=_EVENT_FIELDS),
    # Every filed periodic report's key accounts, 2015 on (sim.platforms.dart.filings generates them when asked).
    Endpoint("dart", HOST, "fnlttSinglAcnt", "dart_account",
             binds={"corp_code": Bind("corp_code", pattern=CORP_CODE),
                    "bsns_year": Bind("bsns_year", pattern=r"20(1[5-9]|2\d)"),
                    "reprt_code": Bind("reprt_code", pattern="110(11|12|13|14)")},
             required=("corp_code", "bsns_year", "reprt_code"), fields=KEY_FIELDS,
             options={"omit_empty": OPTIONAL_KEY_FIELDS}, history=KeyAccountHistory()),
]


# ---------------------------------------------------------------------------------------------------------
# 주요사항보고서 주요정보 (DS005): ~36 APIs sharing corp_code/bgn_de/end_de and a flat `list`.
# Field lists are those of the OpenDART 개발가이드; each field carries a value kind so one generic generator
# fills every API: a amount(원) · n count(주) · r rate(%) · f ratio · v 액면가 · p persons · d date as the
# service writes it ("2024년 05월 21일") · D YYYYMMDD (공매도 기간 only) · t text.
# (api: tool name, 보고서명, share of listed companies with such an event in the last ~2 years, fields)

_MAJOR: dict[str, tuple[str, str, float, str]] = {
    "crDecsn": (
        "get_dart_capital_reduction_decision", "감자 결정", 0.01, (
        "crstk_ostk_cnt:n crstk_estk_cnt:n fv_ps:v bfcr_cpt:a atcr_cpt:a bfcr_tisstk_ostk:n "
        "atcr_tisstk_ostk:n bfcr_tisstk_estk:n atcr_tisstk_estk:n cr_rt_ostk:r cr_rt_estk:r "
        "cr_std:d cr_mth:t cr_rs:t crsc_gmtsck_prd:d crsc_trnmsppd:t crsc_osprpd:t crsc_trspprpd:t "
        "crsc_osprpd_bgd:d crsc_osprpd_edd:d crsc_trspprpd_bgd:d crsc_trspprpd_edd:d "
        "crsc_nstkdlprd:d crsc_nstklstprd:d cdobprpd_bgd:d cdobprpd_edd:d ospr_nstkdl_pl:t bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t ftc_stt_atn:t")),
    "exbdIsDecsn": (
        "get_dart_exchangeable_bond_issuance_decision", "교환사채권 발행결정", 0.02, (
        "bd_tm:t bd_knd:t bd_fta:a ovis_fta:a ovis_fta_crn:t ovis_ster:t ovis_isar:t ovis_mktnm:t "
        "fdpp_fclt:a fdpp_bsninh:a fdpp_op:a fdpp_dtrp:a fdpp_ocsa:a fdpp_etc:a bd_intr_ex:r "
        "bd_intr_sf:r bd_mtd:d bdis_mthn:t ex_rt:r ex_prc:a ex_prc_dmth:t extg:t extg_stkcnt:n "
        "extg_tisstk_vs:r exrqpd_bgd:d exrqpd_edd:d sbd:d pymd:d rpmcmp:t grint:t bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t rs_sm_atn:t ex_sm_r:t ovis_ltdtl:t ftc_stt_atn:t")),
    "fricDecsn": (
        "get_dart_bonus_issue_decision", "무상증자 결정", 0.02, (
        "nstk_ostk_cnt:n nstk_estk_cnt:n fv_ps:v bfic_tisstk_ostk:n bfic_tisstk_estk:n nstk_asstd:d "
        "nstk_ascnt_ps_ostk:f nstk_ascnt_ps_estk:f nstk_dividrk:d nstk_dlprd:d nstk_lstprd:d bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t")),
    "dfOcr": (
        "get_dart_default_occurrence", "부도발생", 0.003, (
        "df_cn:t df_amt:a df_bnk:t dfd:d df_rs:t")),
    "wdCocobdIsDecsn": (
        "get_dart_write_down_contingent_bond_decision", "상각형 조건부자본증권 발행결정", 0.004, (
        "bd_tm:t bd_knd:t bd_fta:a ovis_fta:a ovis_fta_crn:t ovis_ster:t ovis_isar:t ovis_mktnm:t "
        "fdpp_fclt:a fdpp_bsninh:a fdpp_op:a fdpp_dtrp:a fdpp_ocsa:a fdpp_etc:a bd_intr_sf:r "
        "bd_intr_ex:r bd_mtd:d dbtrs_sc:t sbd:d pymd:d rpmcmp:t grint:t bddd:d od_a_at_t:p "
        "od_a_at_b:p adt_a_atn:t rs_sm_atn:t ex_sm_r:t ovis_ltdtl:t ftc_stt_atn:t")),
    "lwstLg": (
        "get_dart_lawsuit_filing", "소송 등의 제기", 0.03, (
        "icnm:t ac_ap:t rq_cn:t cpct:t ft_ctp:t lgd:d cfd:d")),
    "bdwtIsDecsn": (
        "get_dart_bond_with_warrants_issuance_decision", "신주인수권부사채권 발행결정", 0.025, (
        "bd_tm:t bd_knd:t bd_fta:a atcsc_rmislmt:a ovis_fta:a ovis_fta_crn:t ovis_ster:t "
        "ovis_isar:t ovis_mktnm:t fdpp_fclt:a fdpp_bsninh:a fdpp_op:a fdpp_dtrp:a fdpp_ocsa:a "
        "fdpp_etc:a bd_intr_ex:r bd_intr_sf:r bd_mtd:d bdis_mthn:t ex_rt:r ex_prc:a ex_prc_dmth:t "
        "bdwt_div_atn:t nstk_pym_mth:t nstk_isstk_knd:t nstk_isstk_cnt:n nstk_isstk_tisstk_vs:r "
        "expd_bgd:d expd_edd:d act_mktprcfl_cvprc_lwtrsprc:a act_mktprcfl_cvprc_lwtrsprc_bs:t "
        "rmislmt_lt70p:t abmg:t sbd:d pymd:d rpmcmp:t grint:t bddd:d od_a_at_t:p od_a_at_b:p "
        "adt_a_atn:t rs_sm_atn:t ex_sm_r:t ovis_ltdtl:t ftc_stt_atn:t")),
    "bsnTrfDecsn": (
        "get_dart_business_transfer_decision", "영업양도 결정", 0.006, (
        "trf_bsn:t trf_bsn_mc:t trf_prc:a ast_trf_bsn:a ast_cmp_all:a ast_rt:r sl_trf_bsn:a "
        "sl_cmp_all:a sl_rt:r trf_pp:t trf_af:t trf_prd_ctr_cnsd:d trf_prd_trf_std:d dlptn_cmpnm:t "
        "dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t trf_pym:t exevl_atn:t exevl_bs_rs:t "
        "exevl_intn:t exevl_pd:t exevl_op:t gmtsck_spd_atn:t gmtsck_prd:d aprskh_plnprc:a "
        "aprskh_pym_plpd_mth:t aprskh_lmt:t aprskh_ctref:t bddd:d od_a_at_t:p od_a_at_b:p "
        "adt_a_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "bsnInhDecsn": (
        "get_dart_business_acquisition_decision", "영업양수 결정", 0.006, (
        "inh_bsn:t inh_bsn_mc:t inh_prc:a absn_inh_atn:t ast_inh_bsn:a ast_cmp_all:a ast_rt:r "
        "sl_inh_bsn:a sl_cmp_all:a sl_rt:r dbt_inh_bsn:a dbt_cmp_all:a dbt_rt:r inh_pp:t inh_af:t "
        "inh_prd_ctr_cnsd:d inh_prd_inh_std:d dlptn_cmpnm:t dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t "
        "dlptn_rl_cmpn:t inh_pym:t exevl_atn:t exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t "
        "gmtsck_spd_atn:t gmtsck_prd:d aprskh_plnprc:a aprskh_pym_plpd_mth:t aprskh_lmt:t "
        "aprskh_ctref:t bddd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t bdlst_atn:t n6m_tpai_plann:t "
        "otcpr_bdlst_sf_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "bsnSp": (
        "get_dart_business_suspension", "영업정지", 0.005, (
        "bsnsp_rm:t bsnsp_amt:a rsl:a sl_vs:r ls_atn:t krx_stt_atn:t bsnsp_cn:t bsnsp_rs:t ft_ctp:t "
        "bsnsp_af:t bsnspd:d bddd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t")),
    "pifricDecsn": (
        "get_dart_paid_in_and_bonus_issue_decision", "유무상증자 결정", 0.006, (
        "piic_nstk_ostk_cnt:n piic_nstk_estk_cnt:n piic_fv_ps:v piic_bfic_tisstk_ostk:n "
        "piic_bfic_tisstk_estk:n piic_fdpp_fclt:a piic_fdpp_bsninh:a piic_fdpp_op:a "
        "piic_fdpp_dtrp:a piic_fdpp_ocsa:a piic_fdpp_etc:a piic_ic_mthn:t fric_nstk_ostk_cnt:n "
        "fric_nstk_estk_cnt:n fric_fv_ps:v fric_bfic_tisstk_ostk:n fric_bfic_tisstk_estk:n "
        "fric_nstk_asstd:d fric_nstk_ascnt_ps_ostk:f fric_nstk_ascnt_ps_estk:f fric_nstk_dividrk:d "
        "fric_nstk_dlprd:d fric_nstk_lstprd:d fric_bddd:d fric_od_a_at_t:p fric_od_a_at_b:p "
        "fric_adt_a_atn:t ssl_at:t ssl_bgd:D ssl_edd:D")),
    "piicDecsn": (
        "get_dart_paid_in_capital_increase_decision", "유상증자 결정", 0.06, (
        "nstk_ostk_cnt:n nstk_estk_cnt:n fv_ps:v bfic_tisstk_ostk:n bfic_tisstk_estk:n fdpp_fclt:a "
        "fdpp_bsninh:a fdpp_op:a fdpp_dtrp:a fdpp_ocsa:a fdpp_etc:a ic_mthn:t ssl_at:t ssl_bgd:D "
        "ssl_edd:D")),
    "tgastTrfDecsn": (
        "get_dart_tangible_asset_transfer_decision", "유형자산 양도 결정", 0.015, (
        "ast_sen:t ast_nm:t trfdtl_trfprc:a trfdtl_tast:a trfdtl_tast_vs:r trf_pp:t trf_af:t "
        "trf_prd_ctr_cnsd:d trf_prd_trf_std:d trf_prd_rgs_prd:d dlptn_cmpnm:t dlptn_cpt:a "
        "dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t exevl_atn:t exevl_bs_rs:t exevl_intn:t "
        "exevl_pd:t exevl_op:t gmtsck_spd_atn:t gmtsck_prd:d aprskh_exrq:t aprskh_plnprc:a "
        "aprskh_ex_pc_mth_pd_pl:t aprskh_pym_plpd_mth:t aprskh_lmt:t aprskh_ctref:t bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "tgastInhDecsn": (
        "get_dart_tangible_asset_acquisition_decision", "유형자산 양수 결정", 0.02, (
        "ast_sen:t ast_nm:t inhdtl_inhprc:a inhdtl_tast:a inhdtl_tast_vs:r inh_pp:t inh_af:t "
        "inh_prd_ctr_cnsd:d inh_prd_inh_std:d inh_prd_rgs_prd:d dlptn_cmpnm:t dlptn_cpt:a "
        "dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t exevl_atn:t exevl_bs_rs:t exevl_intn:t "
        "exevl_pd:t exevl_op:t gmtsck_spd_atn:t gmtsck_prd:d aprskh_exrq:t aprskh_plnprc:a "
        "aprskh_ex_pc_mth_pd_pl:t aprskh_pym_plpd_mth:t aprskh_lmt:t aprskh_ctref:t bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "tsstkDpDecsn": (
        "get_dart_treasury_stock_disposal_decision", "자기주식 처분 결정", 0.04, (
        "dppln_stk_ostk:n dppln_stk_estk:n dpstk_prc_ostk:a dpstk_prc_estk:a dppln_prc_ostk:a "
        "dppln_prc_estk:a dpprpd_bgd:d dpprpd_edd:d dp_pp:t dp_m_mkt:n dp_m_ovtm:n dp_m_otc:n "
        "dp_m_etc:n cs_iv_bk:t aq_wtn_div_ostk:n aq_wtn_div_ostk_rt:r aq_wtn_div_estk:n "
        "aq_wtn_div_estk_rt:r eaq_ostk:n eaq_ostk_rt:r eaq_estk:n eaq_estk_rt:r dp_dd:d od_a_at_t:p "
        "od_a_at_b:p adt_a_atn:t d1_slodlm_ostk:n d1_slodlm_estk:n")),
    "tsstkAqDecsn": (
        "get_dart_treasury_stock_acquisition_decision", "자기주식 취득 결정", 0.06, (
        "aqpln_stk_ostk:n aqpln_stk_estk:n aqpln_prc_ostk:a aqpln_prc_estk:a aqexpd_bgd:d "
        "aqexpd_edd:d hdexpd_bgd:d hdexpd_edd:d aq_pp:t aq_mth:t cs_iv_bk:t aq_wtn_div_ostk:n "
        "aq_wtn_div_ostk_rt:r aq_wtn_div_estk:n aq_wtn_div_estk_rt:r eaq_ostk:n eaq_ostk_rt:r "
        "eaq_estk:n eaq_estk_rt:r aq_dd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t d1_prodlm_ostk:n "
        "d1_prodlm_estk:n")),
    "tsstkAqTrctrCnsDecsn": (
        "get_dart_treasury_stock_trust_contract_decision", "자기주식취득 신탁계약 체결 결정", 0.02, (
        "ctr_prc:a ctr_pd_bgd:d ctr_pd_edd:d ctr_pp:t ctr_cns_int:t ctr_cns_prd:d aq_wtn_div_ostk:n "
        "aq_wtn_div_ostk_rt:r aq_wtn_div_estk:n aq_wtn_div_estk_rt:r eaq_ostk:n eaq_ostk_rt:r "
        "eaq_estk:n eaq_estk_rt:r bddd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t cs_iv_bk:t")),
    "tsstkAqTrctrCcDecsn": (
        "get_dart_treasury_stock_trust_termination_decision", "자기주식취득 신탁계약 해지 결정", 0.015, (
        "ctr_prc_bfcc:a ctr_prc_atcc:a ctr_pd_bfcc_bgd:d ctr_pd_bfcc_edd:d cc_pp:t cc_int:t "
        "cc_prd:d tp_rm_atcc:t aq_wtn_div_ostk:n aq_wtn_div_ostk_rt:r aq_wtn_div_estk:n "
        "aq_wtn_div_estk_rt:r eaq_ostk:n eaq_ostk_rt:r eaq_estk:n eaq_estk_rt:r bddd:d od_a_at_t:p "
        "od_a_at_b:p adt_a_atn:t")),
    "astInhtrfEtcPtbkOpt": (
        "get_dart_asset_transfer_putback_option", "자산양수도(기타), 풋백옵션", 0.004, (
        "rp_rsn:t ast_inhtrf_prc:a")),
    "stkrtbdTrfDecsn": (
        "get_dart_equity_linked_bond_transfer_decision", "주권 관련 사채권 양도 결정", 0.006, (
        "stkrtbd_kndn:t tm:t knd:t aqd:d bdiscmp_cmpnm:t bdiscmp_nt:t bdiscmp_rp:t bdiscmp_cpt:a "
        "bdiscmp_rl_cmpn:t bdiscmp_tisstk:n bdiscmp_mbsn:t trfdtl_bd_fta:a trfdtl_trfprc:a "
        "trfdtl_tast:a trfdtl_tast_vs:r trfdtl_ecpt:a trfdtl_ecpt_vs:r trf_pp:t trf_prd:d "
        "dlptn_cmpnm:t dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t exevl_atn:t "
        "exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t bddd:d od_a_at_t:p od_a_at_b:p "
        "adt_a_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "stkrtbdInhDecsn": (
        "get_dart_equity_linked_bond_acquisition_decision", "주권 관련 사채권 양수 결정", 0.006, (
        "stkrtbd_kndn:t tm:t knd:t bdiscmp_cmpnm:t bdiscmp_nt:t bdiscmp_rp:t bdiscmp_cpt:a "
        "bdiscmp_rl_cmpn:t bdiscmp_tisstk:n bdiscmp_mbsn:t l6m_tpa_nstkaq_atn:t inhdtl_bd_fta:a "
        "inhdtl_inhprc:a inhdtl_tast:a inhdtl_tast_vs:r inhdtl_ecpt:a inhdtl_ecpt_vs:r inh_pp:t "
        "inh_prd:d dlptn_cmpnm:t dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t "
        "exevl_atn:t exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t bddd:d od_a_at_t:p "
        "od_a_at_b:p adt_a_atn:t ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "stkExtrDecsn": (
        "get_dart_stock_exchange_transfer_decision", "주식교환·이전 결정", 0.005, (
        "extr_sen:t extr_stn:t extr_tgcmp_cmpnm:t extr_tgcmp_rp:t extr_tgcmp_mbsn:t "
        "extr_tgcmp_rl_cmpn:t extr_tgcmp_tisstk_ostk:n extr_tgcmp_tisstk_cstk:n rbsnfdtl_tast:a "
        "rbsnfdtl_tdbt:a rbsnfdtl_teqt:a rbsnfdtl_cpt:a extr_rt:t extr_rt_bs:t exevl_atn:t "
        "exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t extr_pp:t extrsc_extrctrd:d "
        "extrsc_shddstd:d extrsc_shclspd_bgd:d extrsc_shclspd_edd:d extrsc_extrop_rcpd_bgd:d "
        "extrsc_extrop_rcpd_edd:d extrsc_gmtsck_prd:d extrsc_aprskh_expd_bgd:d "
        "extrsc_aprskh_expd_edd:d extrsc_osprpd_bgd:d extrsc_osprpd_edd:d extrsc_trspprpd:t "
        "extrsc_trspprpd_bgd:d extrsc_trspprpd_edd:d extrsc_extrdt:d extrsc_nstkdlprd:d "
        "extrsc_nstklstprd:d atextr_cpcmpnm:t aprskh_plnprc:a aprskh_pym_plpd_mth:t aprskh_lmt:t "
        "aprskh_ctref:t bdlst_atn:t otcpr_bdlst_sf_atn:t bddd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t "
        "popt_ctr_atn:t popt_ctr_cn:t rs_sm_atn:t ex_sm_r:t")),
    "bnkMngtPcbg": (
        "get_dart_creditor_bank_management_start", "채권은행 등의 관리절차 개시", 0.002, (
        "mngt_pcbg_dd:d mngt_int:t mngt_pd:t mngt_rs:t cfd:d")),
    "bnkMngtPcsp": (
        "get_dart_creditor_bank_management_stop", "채권은행 등의 관리절차 중단", 0.002, (
        "mngt_pcsp_dd:d mngt_int:t sp_rs:t ft_ctp:t cfd:d")),
    "otcprStkInvscrTrfDecsn": (
        "get_dart_other_corp_stock_transfer_decision", "타법인 주식 및 출자증권 양도결정", 0.02, (
        "iscmp_cmpnm:t iscmp_nt:t iscmp_rp:t iscmp_cpt:a iscmp_rl_cmpn:t iscmp_tisstk:n "
        "iscmp_mbsn:t trfdtl_stkcnt:n trfdtl_trfprc:a trfdtl_tast:a trfdtl_tast_vs:r trfdtl_ecpt:a "
        "trfdtl_ecpt_vs:r attrf_owstkcnt:n attrf_eqrt:r trf_pp:t trf_prd:d dlptn_cmpnm:t "
        "dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t exevl_atn:t exevl_bs_rs:t "
        "exevl_intn:t exevl_pd:t exevl_op:t bddd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t "
        "ftc_stt_atn:t popt_ctr_atn:t popt_ctr_cn:t")),
    "otcprStkInvscrInhDecsn": (
        "get_dart_other_corp_stock_acquisition_decision", "타법인 주식 및 출자증권 양수결정", 0.04, (
        "iscmp_cmpnm:t iscmp_nt:t iscmp_rp:t iscmp_cpt:a iscmp_rl_cmpn:t iscmp_tisstk:n "
        "iscmp_mbsn:t l6m_tpa_nstkaq_atn:t inhdtl_stkcnt:n inhdtl_inhprc:a inhdtl_tast:a "
        "inhdtl_tast_vs:r inhdtl_ecpt:a inhdtl_ecpt_vs:r atinh_owstkcnt:n atinh_eqrt:r inh_pp:t "
        "inh_prd:d dlptn_cmpnm:t dlptn_cpt:a dlptn_mbsn:t dlptn_hoadd:t dlptn_rl_cmpn:t dl_pym:t "
        "exevl_atn:t exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t bddd:d od_a_at_t:p "
        "od_a_at_b:p adt_a_atn:t bdlst_atn:t n6m_tpai_plann:t iscmp_bdlst_sf_atn:t ftc_stt_atn:t "
        "popt_ctr_atn:t popt_ctr_cn:t")),
    "dsRsOcr": (
        "get_dart_dissolution_cause_occurrence", "해산사유 발생", 0.002, (
        "ds_rs:t ds_rsd:d od_a_at_t:p od_a_at_b:p adt_a_atn:t")),
    "ovLstDecsn": (
        "get_dart_overseas_listing_decision", "해외 증권시장 주권등 상장 결정", 0.002, (
        "lstprstk_ostk_cnt:n lstprstk_estk_cnt:n tisstk_ostk:n tisstk_estk:n psmth_nstk_sl:n "
        "psmth_ostk_sl:n fdpp:t lststk_orlst:n lststk_drlst:n lstex_nt:t lstpp:t lstprd:d bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t")),
    "ovLst": (
        "get_dart_overseas_listing", "해외 증권시장 주권등 상장", 0.002, (
        "lststk_ostk_cnt:n lststk_estk_cnt:n lstex_nt:t stk_cd:t lstd:d cfd:d")),
    "ovDlstDecsn": (
        "get_dart_overseas_delisting_decision", "해외 증권시장 주권등 상장폐지 결정", 0.002, (
        "dlststk_ostk_cnt:n dlststk_estk_cnt:n lstex_nt:t dlstrq_prd:d dlst_prd:d dlst_rs:t bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t")),
    "ovDlst": (
        "get_dart_overseas_delisting", "해외 증권시장 주권등 상장폐지", 0.002, (
        "lstex_nt:t dlststk_ostk_cnt:n dlststk_estk_cnt:n tredd:d dlst_rs:t cfd:d")),
    "cmpDvDecsn": (
        "get_dart_company_split_decision", "회사분할 결정", 0.01, (
        "dv_mth:t dv_impef:t dv_rt:t dv_trfbsnprt_cn:t atdv_excmp_cmpnm:t atdvfdtl_tast:a "
        "atdvfdtl_tdbt:a atdvfdtl_teqt:a atdvfdtl_cpt:a atdvfdtl_std:t atdv_excmp_exbsn_rsl:a "
        "atdv_excmp_mbsn:t atdv_excmp_atdv_lstmn_atn:t dvfcmp_cmpnm:t ffdtl_tast:a ffdtl_tdbt:a "
        "ffdtl_teqt:a ffdtl_cpt:a ffdtl_std:t dvfcmp_nbsn_rsl:a dvfcmp_mbsn:t dvfcmp_rlst_atn:t "
        "abcr_crrt:r abcr_osprpd_bgd:d abcr_osprpd_edd:d abcr_trspprpd_bgd:d abcr_trspprpd_edd:d "
        "abcr_nstkascnd:t abcr_shstkcnt_rt_at_rs:t abcr_nstkasstd:d abcr_nstkdlprd:d "
        "abcr_nstklstprd:d gmtsck_prd:d cdobprpd_bgd:d cdobprpd_edd:d dvdt:d dvrgsprd:d bddd:d "
        "od_a_at_t:p od_a_at_b:p adt_a_atn:t popt_ctr_atn:t popt_ctr_cn:t rs_sm_atn:t ex_sm_r:t")),
    "cmpDvmgDecsn": (
        "get_dart_company_split_merger_decision", "회사분할합병 결정", 0.004, (
        "dvmg_mth:t dvmg_impef:t dv_trfbsnprt_cn:t atdv_excmp_cmpnm:t atdvfdtl_tast:a "
        "atdvfdtl_tdbt:a atdvfdtl_teqt:a atdvfdtl_cpt:a atdvfdtl_std:t atdv_excmp_exbsn_rsl:a "
        "atdv_excmp_mbsn:t atdv_excmp_atdv_lstmn_atn:t dvfcmp_cmpnm:t ffdtl_tast:a ffdtl_tdbt:a "
        "ffdtl_teqt:a ffdtl_cpt:a ffdtl_std:t dvfcmp_nbsn_rsl:a dvfcmp_mbsn:t "
        "dvfcmp_atdv_lstmn_at:t abcr_crrt:r abcr_osprpd_bgd:d abcr_osprpd_edd:d abcr_trspprpd_bgd:d "
        "abcr_trspprpd_edd:d abcr_nstkascnd:t abcr_shstkcnt_rt_at_rs:t abcr_nstkasstd:t "
        "abcr_nstkdlprd:t abcr_nstklstprd:t mg_stn:t mgptncmp_cmpnm:t mgptncmp_mbsn:t "
        "mgptncmp_rl_cmpn:t rbsnfdtl_tast:a rbsnfdtl_tdbt:a rbsnfdtl_teqt:a rbsnfdtl_cpt:a "
        "rbsnfdtl_sl:a rbsnfdtl_nic:a eadtat_intn:t eadtat_op:t dvmgnstk_ostk_cnt:n "
        "dvmgnstk_cstk_cnt:n nmgcmp_cmpnm:t nmgcmp_cpt:a nmgcmp_mbsn:t nmgcmp_rlst_atn:t dvmg_rt:t "
        "dvmg_rt_bs:t exevl_atn:t exevl_bs_rs:t exevl_intn:t exevl_pd:t exevl_op:t "
        "dvmgsc_dvmgctrd:d dvmgsc_shddstd:d dvmgsc_shclspd_bgd:d dvmgsc_shclspd_edd:d "
        "dvmgsc_dvmgop_rcpd_bgd:d dvmgsc_dvmgop_rcpd_edd:d dvmgsc_gmtsck_prd:d "
        "dvmgsc_aprskh_expd_bgd:d dvmgsc_aprskh_expd_edd:d dvmgsc_cdobprpd_bgd:d "
        "dvmgsc_cdobprpd_edd:d dvmgsc_dvmgdt:d dvmgsc_ergmd:d dvmgsc_dvmgrgsprd:d bdlst_atn:t "
        "otcpr_bdlst_sf_atn:t aprskh_exrq:t aprskh_plnprc:a aprskh_ex_pc_mth_pd_pl:t "
        "aprskh_pym_plpd_mth:t aprskh_lmt:t aprskh_ctref:t bddd:d od_a_at_t:p od_a_at_b:p "
        "adt_a_atn:t popt_ctr_atn:t popt_ctr_cn:t rs_sm_atn:t ex_sm_r:t")),
    "cmpMgDecsn": (
        "get_dart_company_merger_decision", "회사합병 결정", 0.02, (
        "mg_mth:t mg_stn:t mg_pp:t mg_rt:t mg_rt_bs:t exevl_atn:t exevl_bs_rs:t exevl_intn:t "
        "exevl_pd:t exevl_op:t mgnstk_ostk_cnt:n mgnstk_cstk_cnt:n mgptncmp_cmpnm:t mgptncmp_mbsn:t "
        "mgptncmp_rl_cmpn:t rbsnfdtl_tast:a rbsnfdtl_tdbt:a rbsnfdtl_teqt:a rbsnfdtl_cpt:a "
        "rbsnfdtl_sl:a rbsnfdtl_nic:a eadtat_intn:t eadtat_op:t nmgcmp_cmpnm:t ffdtl_tast:a "
        "ffdtl_tdbt:a ffdtl_teqt:a ffdtl_cpt:a ffdtl_std:t nmgcmp_nbsn_rsl:a nmgcmp_mbsn:t "
        "nmgcmp_rlst_atn:t mgsc_mgctrd:d mgsc_shddstd:d mgsc_shclspd_bgd:d mgsc_shclspd_edd:d "
        "mgsc_mgop_rcpd_bgd:d mgsc_mgop_rcpd_edd:d mgsc_gmtsck_prd:d mgsc_aprskh_expd_bgd:d "
        "mgsc_aprskh_expd_edd:d mgsc_osprpd_bgd:d mgsc_osprpd_edd:d mgsc_trspprpd_bgd:d "
        "mgsc_trspprpd_edd:d mgsc_cdobprpd_bgd:d mgsc_cdobprpd_edd:d mgsc_mgdt:d mgsc_ergmd:d "
        "mgsc_mgrgsprd:d mgsc_nstkdlprd:d mgsc_nstklstprd:d bdlst_atn:t otcpr_bdlst_sf_atn:t "
        "aprskh_plnprc:a aprskh_pym_plpd_mth:t aprskh_ctref:t bddd:d od_a_at_t:p od_a_at_b:p "
        "adt_a_atn:t popt_ctr_atn:t popt_ctr_cn:t rs_sm_atn:t ex_sm_r:t")),
    "ctrcvsBgrq": (
        "get_dart_rehabilitation_filing", "회생절차 개시신청", 0.003, (
        "apcnt:t cpct:t rq_rs:t rqd:d ft_ctp_sc:t")),
}

_COMMON_EVENT = ("rcept_no", "corp_cls", "corp_code", "corp_name")
_SECURITIES = ("NH투자증권", "KB증권", "미래에셋증권", "한국투자증권", "삼성증권", "신한투자증권", "키움증권")
_AUDITORS = ("삼일회계법인", "삼정회계법인", "한영회계법인", "안진회계법인", "대주회계법인")
_COURTS = ("서울중앙지방법원", "서울회생법원", "수원지방법원", "부산지방법원", "대전지방법원", "인천지방법원")
_BANKS = ("신한은행", "국민은행", "우리은행", "하나은행", "중소기업은행", "농협은행")
_BUSINESS = ("전자부품 제조", "소프트웨어 개발 및 공급", "의약품 제조", "화학제품 제조", "자동차부품 제조",
             "도매 및 상품중개", "2차전지 소재 제조")
# Exact-key texts first, then key-suffix rules; anything else is "-" as the service prints an empty cell.
_TEXT_EXACT: dict[str, tuple[str, ...]] = {
    "ic_mthn": ("제3자배정증자", "주주배정후 실권주 일반공모", "일반공모증자", "주주우선공모증자"),
    "piic_ic_mthn": ("주주배정후 실권주 일반공모", "제3자배정증자"),
    "ssl_at": ("Y", "N"),
    "bd_knd": ("무기명식 이권부 무보증 사모사채", "기명식 무보증 사모사채", "무기명식 이권부 무보증 공모사채"),
    "bdis_mthn": ("사모", "공모"),
    "bdwt_div_atn": ("분리", "비분리"),
    "nstk_pym_mth": ("현금납입", "사채대용납입"),
    "nstk_isstk_knd": ("기명식 보통주",),
    "extg": ("기명식 보통주(자기주식)", "타법인 기명식 보통주"),
    "ex_prc_dmth": ("증권의 발행 및 공시 등에 관한 규정 제5-22조에 의거 산정",),
    "act_mktprcfl_cvprc_lwtrsprc_bs": ("행사가액의 70%", "교환가액의 70%"),
    "aq_mth": ("유가증권시장을 통한 장내 직접 취득", "코스닥시장을 통한 장내 직접 취득"),
    "aq_pp": ("주주가치 제고", "주가안정 및 주주가치 제고", "임직원 보상"),
    "dp_pp": ("임직원 성과보상", "교환사채 발행에 따른 교환대상 주식", "운영자금 확보"),
    "ctr_pp": ("주가안정 및 주주가치 제고",), "cc_pp": ("신탁계약 기간 만료",),
    "ctr_cns_int": _SECURITIES, "cc_int": _SECURITIES, "cs_iv_bk": _SECURITIES, "rpmcmp": _SECURITIES,
    "exevl_intn": _AUDITORS, "eadtat_intn": _AUDITORS, "exevl_op": ("적정",), "eadtat_op": ("적정",),
    "exevl_atn": ("예", "아니오"), "exevl_pd": ("-",),
    "cr_mth": ("보통주 10주를 1주로 병합", "보통주 5주를 1주로 병합", "무상감자(주식병합)"),
    "cr_rs": ("재무구조 개선", "결손금 보전"), "ospr_nstkdl_pl": ("국민은행 증권대행부", "한국예탁결제원"),
    "mg_mth": ("흡수합병", "소규모합병", "간이합병"), "mg_stn": ("흡수합병", "신설합병"),
    "mg_pp": ("경영 효율성 제고 및 시너지 창출", "사업 구조 재편"), "mg_rt": ("1 : 0.4521368", "1 : 0", "1 : 1.2500000"),
    "mg_rt_bs": ("자본시장과 금융투자업에 관한 법률 시행령 제176조의5에 따라 산정",),
    "dv_mth": ("물적분할", "인적분할"), "dv_rt": ("-",), "dvmg_mth": ("흡수분할합병",),
    "extr_sen": ("주식교환",), "extr_stn": ("포괄적 주식교환",), "extr_rt": ("1 : 0.1523", "1 : 2.0812"),
    "icnm": ("손해배상 청구의 소", "주주총회결의 무효확인의 소", "신주발행금지 가처분", "약정금 청구의 소"),
    "rq_cn": ("손해배상금 및 지연손해금의 지급 청구", "주주총회결의의 무효 확인 청구"),
    "ft_ctp": ("법적 절차에 따라 적극적으로 대응할 예정입니다.",),
    "ft_ctp_sc": ("관할법원의 회생절차 개시 여부 결정에 따라 후속 절차를 진행할 예정입니다.",),
    "rq_rs": ("경영정상화 및 향후 계속 기업으로의 가치 보존",), "apcnt": ("회사(채무자)",),
    "df_cn": ("당사 발행 만기어음 부도", "당좌수표 부도"), "df_rs": ("부도사유 : 예금부족", "부도사유 : 법적지급제한"),
    "df_bnk": _BANKS, "cpct": _COURTS, "mngt_int": _BANKS,
    "mngt_rs": ("채권금융기관 공동관리",), "sp_rs": ("경영정상화 약정 이행 완료",),
    "bsnsp_rm": ("제조업 일부", "도매업"), "bsnsp_cn": ("행정처분에 따른 영업정지",),
    "bsnsp_rs": ("관련 법령 위반에 따른 행정처분",), "bsnsp_af": ("매출 일부 감소 예상",),
    "ds_rs": ("주주총회 해산 결의",), "lstex_nt": ("미국 나스닥", "싱가포르 증권거래소"),
    "lstpp": ("해외 투자자 확보",), "dlst_rs": ("거래량 저조에 따른 자진 상장폐지",), "fdpp": ("-",),
    "rp_rsn": ("풋백옵션 계약 체결",), "ast_sen": ("토지 및 건물", "기계장치"), "ast_nm": ("본사 사옥", "생산공장"),
    "stkrtbd_kndn": ("전환사채",), "knd": ("무기명식 이권부 무보증 사모 전환사채",),
    "dl_pym": ("현금 지급",), "inh_pym": ("현금 지급",), "trf_pym": ("현금 수령",),
}
_TEXT_SUFFIX: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("_atn", ("아니오", "예", "미해당")), ("_at", ("아니오", "예")),
    ("_nt", ("대한민국",)), ("_mbsn", _BUSINESS), ("_rl_cmpn", ("특수관계 없음", "계열회사", "최대주주")),
    ("_pp", ("사업 다각화", "신규 사업 진출", "재무구조 개선", "경영 효율성 제고")),
    ("_af", ("사업 경쟁력 강화 기대",)), ("_bsn", ("반도체 장비 사업부문", "화학소재 사업부문")),
)
_DECISION_DAY = frozenset({"bddd", "fric_bddd", "aq_dd", "dp_dd", "cfd", "ds_rsd", "rqd", "lgd",
                           "mngt_pcbg_dd", "mngt_pcsp_dd"})
_PER_SHARE = frozenset({"ex_prc", "dpstk_prc_ostk", "aprskh_plnprc", "act_mktprcfl_cvprc_lwtrsprc"})
_MOSTLY_EMPTY = ("estk", "cstk", "ovis", "eaq_", "fdpp_etc", "fdpp_bsninh", "_lmt", "grint")


def _pick(rng: np.random.Generator, seq):
    """One element; cheaper than rng.choice, which copies the sequence into an array on every call."""
    return seq[int(rng.integers(len(seq)))]


def ko_date(day: dt.date) -> str:
    """Dates inside 주요사항보고서 answers are written as the report prints them."""
    return f"{day.year}년 {day.month:02d}월 {day.day:02d}일"


def _event_value(kind: str, key: str, day: dt.date, c: Company, rng: np.random.Generator, pools: dict) -> str:
    if rng.random() < (0.85 if any(m in key for m in _MOSTLY_EMPTY) else 0.04):
        return "-"
    cap = max(c.list_shrs * c.base_price, 1_000_000_000)
    if key in _PER_SHARE:  # 원/주: near the stock's own price
        return f"{max(100, int(c.base_price * rng.uniform(0.7, 1.2)) // 5 * 5):,}"
    if kind == "a":
        return f"{int(cap * rng.uniform(0.004, 0.15)) // 1_000_000 * 1_000_000:,}"
    if kind == "n":
        return f"{int(c.list_shrs * rng.uniform(0.002, 0.15)):,}"
    if kind == "r":
        return f"{rng.uniform(0.1, 30):.2f}"
    if kind == "f":
        return str(_pick(rng, ["0.5", "1.0", "0.2", "2.0"]))
    if kind == "v":
        return str(_pick(rng, ["100", "500", "1,000", "5,000"]))
    if kind == "p":
        return str(int(rng.integers(0, 5)))
    if kind == "D":
        return yyyymmdd(day + dt.timedelta(days=int(rng.integers(1, 40))))
    if kind == "d":
        if key in _DECISION_DAY:
            return ko_date(day)
        if key == "bd_mtd":
            return ko_date(day.replace(year=day.year + 3))
        span = (91, 400) if key.endswith("_edd") else (1, 90)
        return ko_date(day + dt.timedelta(days=int(rng.integers(*span))))
    return _event_text(key, rng, pools)


def _event_text(key: str, rng: np.random.Generator, pools: dict) -> str:
    if key in _TEXT_EXACT:
        return str(_pick(rng, _TEXT_EXACT[key]))
    if key.endswith("cmpnm"):
        return str(_pick(rng, pools["names"]))  # counterparties are other companies of the same world
    if key.endswith("_rp") or key in ("ac_ap",):
        return str(_pick(rng, pools["people"]))
    if key.endswith("hoadd"):
        return str(_pick(rng, pools["addresses"]))
    if key in ("bd_tm", "tm"):
        return str(int(rng.integers(1, 15)))
    for suffix, choices in _TEXT_SUFFIX:
        if key.endswith(suffix):
            return str(_pick(rng, choices))
    return "-"


def _event_day(ctx: WorldContext, rng: np.random.Generator) -> dt.date:
    day = ctx.today - dt.timedelta(days=int(rng.integers(3, 700)))
    while day.weekday() >= 5:
        day -= dt.timedelta(days=1)
    return day


def _issuers(ctx: WorldContext, rng: np.random.Generator, share: float) -> list[Company]:
    """Companies with at least one such event: mostly listed ones; never the anchor companies, whose
    disclosures the worked example fixes."""
    # The well-known real companies (appended last) are left out too: their events would be invented news.
    pool = ctx.companies[len(ANCHOR_COMPANIES):len(ctx.companies) - len(WELL_KNOWN)]
    weight = np.array([1.0 if c.stock_code else 0.08 for c in pool])
    hit = np.flatnonzero(rng.random(len(pool)) < share * weight)
    if len(hit) == 0:  # every API answers for someone, even in the small world
        hit = np.array([int(rng.integers(0, len(pool)))])
    return [pool[int(i)] for i in hit]


def _major_pools(ctx: WorldContext) -> dict:
    rng = ctx.rng("dart", "major-pools")
    generated = ctx.companies[:len(ctx.companies) - len(WELL_KNOWN)]  # counterparties are generated companies
    return {"names": [c.corp_name for c in generated], "people": person_names(rng, 200),
            "addresses": [c.adres for c in generated[:500]]}


def _major_events(ctx: WorldContext) -> list[TableData]:
    """One table per 주요사항보고서 API; 0 events for most companies, 1–3 for a few."""
    key = "dart_major_events"
    if key in ctx._cache:
        return ctx._cache[key]
    pools = _major_pools(ctx)
    tables = []
    serial = 0
    for api, (_tool, _title, share, spec) in _MAJOR.items():
        rng = ctx.rng("dart-major", api)
        fields = [tuple(tok.split(":")) for tok in spec.split()]
        cols: dict[str, list] = {k: [] for k in (*_COMMON_EVENT, *(f for f, _ in fields), "rcept_dt")}
        events = []
        for c in _issuers(ctx, rng, share):
            for _ in range(1 + int(rng.random() < 0.25) + int(rng.random() < 0.08)):
                events.append((_event_day(ctx, rng), c))
        events.sort(key=lambda e: (e[0], e[1].corp_code))
        for day, c in events:
            serial += 1
            cols["rcept_no"].append(f"{yyyymmdd(day)}{900_000 + serial:06d}")
            cols["corp_cls"].append(c.corp_cls)
            cols["corp_code"].append(c.corp_code)
            cols["corp_name"].append(c.corp_name)
            cols["rcept_dt"].append(yyyymmdd(day))
            for name, kind in fields:
                cols[name].append(_event_value(kind, name, day, c, rng, pools))
        tables.append(TableData(f"dart_major_{api}", cols, entities={
            "corp_code": "corp_code", "corp_name": "corp_name", "rcept_no": "rcept_no",
            "rcept_dt": "disclosure_date"}))
    ctx._cache[key] = tables
    return tables


def _major_list_rows(ctx: WorldContext) -> list[tuple]:
    """Every 주요사항보고서 event also appears in 공시검색 under its report name."""
    by_code = {c.corp_code: c for c in ctx.companies}
    rows = []
    for (_tool, title, _share, _spec), table in zip(_MAJOR.values(), _major_events(ctx), strict=True):
        cols = table.columns
        name = f"주요사항보고서({title.replace(' ', '')})"
        for code, day, no in zip(cols["corp_code"], cols["rcept_dt"], cols["rcept_no"], strict=True):
            rows.append((day, by_code[code], "B", "B001", name, no, by_code[code].corp_name))
    return rows


def _ownership_list_rows(ctx: WorldContext) -> list[tuple]:
    """Every 지분공시 report also appears in 공시검색, filed by its reporter (flr_nm), as the real list shows."""
    by_code = {c.corp_code: c for c in ctx.companies}
    major, ele = (t.columns for t in _ownership(ctx))
    rows = [(day, by_code[code], "D", "D001", f"주식등의대량보유상황보고서({tp})", no, who)
            for day, code, no, tp, who in zip(major["rcept_dt"], major["corp_code"], major["rcept_no"],
                                              major["report_tp"], major["repror"], strict=True)]
    rows += [(day.replace("-", ""), by_code[code], "D", "D002", "임원ㆍ주요주주특정증권등소유상황보고서", no, who)
             for day, code, no, who in zip(ele["rcept_dt"], ele["corp_code"], ele["rcept_no"], ele["repror"],
                                           strict=True)]
    return rows


# ---------------------------------------------------------------------------------------------------------
# 정기보고서 주요정보 (DS002): corp_code + bsns_year + reprt_code. Every periodic report filed (filings.py)
# answers, under its own rcept_no, generated from a stream named by the filing when asked; the stored tables
# are a sample: listed companies' latest 사업보고서.

_PERIODIC_ENTITIES = {"corp_code": "corp_code", "corp_name": "corp_name", "rcept_no": "rcept_no",
                      "bsns_year": "business_year", "reprt_code": "report_code"}
_STLM = {"11013": "03-31", "11012": "06-30", "11014": "09-30", "11011": "12-31"}


class _Rows:
    """Rows of one report table, each with the report's own columns in front (kept as tuples: cheap)."""

    def __init__(self, fields: tuple[str, ...]) -> None:
        self.names = (*_COMMON_EVENT, *fields, "stlm_dt", "bsns_year", "reprt_code")
        self.rows: list[tuple] = []

    def add(self, f: Filing, *values: str) -> None:
        c = f.company
        self.rows.append((f.rcept_no, c.corp_cls, c.corp_code, c.corp_name, *values,
                          f"{f.year}-{_STLM[f.reprt_code]}", str(f.year), f.reprt_code))

    def table(self, name: str) -> TableData:
        columns = list(zip(*self.rows, strict=True)) if self.rows else [() for _ in self.names]
        return TableData(name, dict(zip(self.names, map(list, columns), strict=True)), entities=_PERIODIC_ENTITIES)


def _n(x: float) -> str:
    return f"{int(x):,}" if x else "-"


def _periodic_pools(ctx: WorldContext) -> tuple[list[str], list[str]]:
    if "dart_periodic_pools" not in ctx._cache:
        ctx._cache["dart_periodic_pools"] = (person_names(ctx.rng("dart", "periodic-names"), 400),
                                             [c.corp_name for c in ctx.companies])
    return ctx._cache["dart_periodic_pools"]


def _periodic(ctx: WorldContext, reports: list[Filing] | None = None) -> list[TableData]:
    """The 9 정기보고서 주요정보 tables for the given filings (default: the stored sample)."""
    if reports is None:
        reports = [f for f in sample_filings(ctx) if f.company.stock_code]
    people, names = _periodic_pools(ctx)
    alot = _Rows(("se", "stock_knd", "thstrm", "frmtrm", "lwfr"))
    hyslr = _Rows(("nm", "relate", "stock_knd", "bsis_posesn_stock_co", "bsis_posesn_stock_qota_rt",
                   "trmend_posesn_stock_co", "trmend_posesn_stock_qota_rt", "rm"))
    emp = _Rows(("fo_bbm", "sexdstn", "reform_bfe_emp_co_rgllbr", "reform_bfe_emp_co_cnttk",
                 "reform_bfe_emp_co_etc", "rgllbr_co", "rgllbr_abacpt_labrr_co", "cnttk_co",
                 "cnttk_abacpt_labrr_co", "sm", "avrg_cnwk_sdytrn", "fyer_salary_totamt", "jan_salary_am", "rm"))
    exctv = _Rows(("nm", "sexdstn", "birth_ym", "ofcps", "rgist_exctv_at", "fte_at", "chrg_job", "main_career",
                   "mxmm_shrholdr_relate", "hffc_pd", "tenure_end_on"))
    irds = _Rows(("isu_dcrs_de", "isu_dcrs_stle", "isu_dcrs_stock_knd", "isu_dcrs_qy",
                  "isu_dcrs_mstvdv_fval_amount", "isu_dcrs_mstvdv_amount"))
    tesstk = _Rows(("acqs_mth1", "acqs_mth2", "acqs_mth3", "stock_knd", "bsis_qy", "change_qy_acqs",
                    "change_qy_dsps", "change_qy_incnr", "trmend_qy", "rm"))
    totqy = _Rows(("se", "isu_stock_totqy", "now_to_isu_stock_totqy", "now_to_dcrs_stock_totqy", "redc",
                   "profit_incnr", "rdmstk_repy", "etc", "istc_totqy", "tesstk_co", "distb_stock_co"))
    otr = _Rows(("inv_prm", "frst_acqs_de", "invstmnt_purps", "frst_acqs_amount", "bsis_blce_qy",
                 "bsis_blce_qota_rt", "bsis_blce_acntbk_amount", "incrs_dcrs_acqs_dsps_qy",
                 "incrs_dcrs_acqs_dsps_amount", "incrs_dcrs_evl_lstmn", "trmend_blce_qy", "trmend_blce_qota_rt",
                 "trmend_blce_acntbk_amount", "recent_bsns_year_fnnr_sttus_tot_assets",
                 "recent_bsns_year_fnnr_sttus_thstrm_ntpf"))
    mrhl = _Rows(("se", "shrholdr_co", "shrholdr_tot_co", "shrholdr_rate", "hold_stock_co", "stock_tot_co",
                  "hold_stock_rate"))
    for f in reports:
        c, year = f.company, f.year
        rng = stream(ctx.seed, "dart-periodic", f"{c.corp_code}:{year}:{f.reprt_code}")
        shares = c.list_shrs or 1_000_000 + stable_int(ctx.seed, "dart-shares", c.corp_code) % 20_000_000
        treasury = int(shares * rng.uniform(0.0, 0.06)) if rng.random() < 0.5 else 0
        major = rng.uniform(0.12, 0.45)
        relatives = [str(_pick(rng, people)) for _ in range(int(rng.integers(1, 4)))]
        officers = [c.ceo_nm] + [str(_pick(rng, people)) for _ in range(int(rng.integers(3, 8)))]
        investees = [str(_pick(rng, names)) for _ in range(int(rng.integers(0, 4)))]
        dps = int(_pick(rng, [0, 0, 50, 100, 200, 300, 500, 1000]))
        # 당기순이익 (백만원) is the statements' own: the same report's 연결 당기순이익 in fnlttSinglAcnt.
        net = int(annual(ctx, c, year)[0, 5]) // 1_000_000
        for se, knd, val in (("주당액면가액(원)", "-", 500), ("(연결)당기순이익(백만원)", "-", net),
                             ("(별도)당기순이익(백만원)", "-", int(net * 0.8)),
                             ("(연결)주당순이익(원)", "-", int(net * 1_000_000 / shares)),
                             ("현금배당금총액(백만원)", "-", dps * shares // 1_000_000),
                             ("(연결)현금배당성향(%)", "-", 0), ("현금배당수익률(%)", "보통주", 0),
                             ("주당 현금배당금(원)", "보통주", dps)):
            if se.endswith("(%)"):
                rate = dps / c.base_price * 100 if "수익률" in se else (
                    dps * shares / 1_000_000 / net * 100 if net > 0 else 0)
                alot.add(f, se, knd, f"{rate:.1f}" if dps else "-", f"{rate * 0.9:.1f}" if dps else "-",
                         "-")
            else:
                alot.add(f, se, knd, f"{val:,}" if val else "-", f"{int(val * 0.9):,}" if val else "-",
                         f"{int(val * 0.8):,}" if val else "-")
        total = 0.0
        for i, nm in enumerate([c.corp_name + "홀딩스", *relatives] if rng.random() < 0.3 else
                               [c.ceo_nm, *relatives]):
            rt = major if i == 0 else major * rng.uniform(0.01, 0.15)
            total += rt
            cnt = int(shares * rt)
            hyslr.add(f, nm, "최대주주 본인" if i == 0 else "특수관계인", "보통주", f"{cnt:,}",
                      f"{rt * 100:.2f}", f"{cnt:,}", f"{rt * 100:.2f}", "-")
        hyslr.add(f, "계", "-", "보통주", f"{int(shares * total):,}", f"{total * 100:.2f}",
                  f"{int(shares * total):,}", f"{total * 100:.2f}", "-")
        staff = max(12, int(c.list_shrs / 60_000 * rng.uniform(0.5, 1.5)))
        for sex, part in (("남", 0.68), ("여", 0.32)):
            regular = int(staff * part * 0.93)
            contract = int(staff * part) - regular
            pay = int(staff * part * rng.uniform(45, 95) * 1_000_000)
            emp.add(f, "전사", sex, "-", "-", "-", f"{regular:,}", "-", f"{contract:,}", "-",
                    f"{regular + contract:,}", f"{rng.uniform(3, 15):.1f}", f"{pay:,}",
                    f"{pay // max(regular + contract, 1):,}", "-")
        for i, nm in enumerate(officers):
            outside = i >= 3
            exctv.add(f, nm, "남" if rng.random() < 0.85 else "여",
                      f"{int(rng.integers(1955, 1985))}년 {int(rng.integers(1, 13)):02d}월",
                      "대표이사" if i == 0 else ("사외이사" if outside else "전무"),
                      "사외이사" if outside else "사내이사", "비상근" if outside else "상근",
                      "대표이사 (경영총괄)" if i == 0 else ("사외이사" if outside else "경영지원 총괄"),
                      f"前 {_pick(rng, names)} 임원", "최대주주 본인" if i == 0 else "-",
                      f"{int(rng.integers(6, 180))}개월", ko_date(dt.date(year + int(rng.integers(1, 4)), 3, 25)))
        if rng.random() < 0.15:
            for _ in range(int(rng.integers(1, 3))):
                when = dt.date(year, int(rng.integers(1, 13)), int(rng.integers(1, 28)))
                irds.add(f, when.strftime("%Y.%m.%d"),
                         str(_pick(rng, ["유상증자(제3자배정)", "전환권행사", "주식매수선택권행사"])), "보통주",
                         f"{int(shares * rng.uniform(0.001, 0.05)):,}", "500",
                         f"{int(c.base_price * rng.uniform(0.7, 1.1)):,}")
        if treasury:
            bought = int(treasury * rng.uniform(0.0, 0.4))
            for m1, m2, m3 in (("배당가능이익범위 이내 취득", "직접취득", "장내직접취득"),
                               ("배당가능이익범위 이내 취득", "소계", "-"), ("총계", "-", "-")):
                tesstk.add(f, m1, m2, m3, "보통주", f"{treasury - bought:,}", _n(bought), "-", "-",
                           f"{treasury:,}", "-")
        for se, issued in (("보통주", shares), ("우선주", 0), ("합계", shares)):
            t = treasury if se != "우선주" else 0
            totqy.add(f, se, f"{shares * 4:,}" if issued else "-", _n(issued), "-", "-", "-", "-", "-",
                      _n(issued), _n(t), _n(issued - t))
        for inv in investees:
            qy = int(rng.integers(10_000, 5_000_000))
            amount = qy * int(rng.integers(500, 20_000))
            rt = rng.uniform(5, 100)
            otr.add(f, inv, f"20{int(rng.integers(10, 23))}0{int(rng.integers(1, 10))}15",
                    str(_pick(rng, ["경영참여", "단순투자", "자회사"])), f"{amount:,}", f"{qy:,}", f"{rt:.2f}",
                    f"{amount:,}", "-", "-", "-", f"{qy:,}", f"{rt:.2f}", f"{amount:,}",
                    f"{amount * int(rng.integers(2, 10)):,}", f"{int(amount * rng.uniform(-0.1, 0.2)):,}")
        holders = int(rng.integers(3_000, 120_000))
        minor_rt = max(0.2, 1 - total - rng.uniform(0.05, 0.2))
        mrhl.add(f, "소액주주", f"{holders:,}", f"{holders + int(rng.integers(3, 40)):,}",
                 f"{rng.uniform(99.5, 99.99):.2f}", f"{int(shares * minor_rt):,}", f"{shares:,}",
                 f"{minor_rt * 100:.2f}")
    return [alot.table("dart_alot_matter"), hyslr.table("dart_largest_shareholder"), emp.table("dart_employee"),
            exctv.table("dart_executive"), irds.table("dart_capital_change"), tesstk.table("dart_treasury_stock"),
            totqy.table("dart_stock_total"), otr.table("dart_other_corp_investment"),
            mrhl.table("dart_minority_shareholder")]


# ---------------------------------------------------------------------------------------------------------
# 지분공시 종합정보 (DS004): every report filed about a company, keyed by corp_code alone.

def _ownership(ctx: WorldContext) -> list[TableData]:
    if "dart_ownership" not in ctx._cache:
        ctx._cache["dart_ownership"] = _build_ownership(ctx)
    return ctx._cache["dart_ownership"]


def _build_ownership(ctx: WorldContext) -> list[TableData]:
    rng = ctx.rng("dart", "ownership")
    people = person_names(ctx.rng("dart", "ownership-names"), 300)
    funds = ("국민연금공단", "블랙록", "한국투자밸류자산운용", "미래에셋자산운용", "브이아이피자산운용")
    major: dict[str, list] = {k: [] for k in ("rcept_no", "rcept_dt", "corp_code", "corp_name", "report_tp",
                                               "repror", "stkqy", "stkqy_irds", "stkrt", "stkrt_irds",
                                               "ctr_stkqy", "ctr_stkrt", "report_resn")}
    ele: dict[str, list] = {k: [] for k in ("rcept_no", "rcept_dt", "corp_code", "corp_name", "repror",
                                             "isu_exctv_rgist_at", "isu_exctv_ofcps", "isu_main_shrholdr",
                                             "sp_stock_lmp_cnt", "sp_stock_lmp_irds_cnt", "sp_stock_lmp_rate",
                                             "sp_stock_lmp_irds_rate")}
    serial = 0
    for c in (c for c in ctx.companies if c.stock_code):
        shares = c.list_shrs
        for _ in range(int(rng.poisson(0.8))):
            serial += 1
            day = _event_day(ctx, rng)
            rt = rng.uniform(5, 20)
            d_rt = rng.uniform(-2, 2)
            major["rcept_no"].append(f"{yyyymmdd(day)}{700_000 + serial % 100_000:06d}")
            major["rcept_dt"].append(yyyymmdd(day))
            major["corp_code"].append(c.corp_code)
            major["corp_name"].append(c.corp_name)
            major["report_tp"].append(str(_pick(rng, ["일반", "약식"])))
            major["repror"].append(str(_pick(rng, funds)))
            major["stkqy"].append(f"{int(shares * rt / 100):,}")
            major["stkqy_irds"].append(f"{int(shares * d_rt / 100):,}")
            major["stkrt"].append(f"{rt:.2f}")
            major["stkrt_irds"].append(f"{d_rt:.2f}")
            major["ctr_stkqy"].append(f"{int(shares * rt / 100):,}")
            major["ctr_stkrt"].append(f"{rt:.2f}")
            major["report_resn"].append(str(_pick(rng, ["보유비율 1% 이상 변동", "신규보고", "보유목적 변경"])))
        for _ in range(int(rng.poisson(1.5))):
            serial += 1
            day = _event_day(ctx, rng)
            cnt = int(shares * rng.uniform(0.0, 0.02))
            d_cnt = int(rng.integers(-50_000, 50_000))
            registered = rng.random() < 0.5
            ele["rcept_no"].append(f"{yyyymmdd(day)}{600_000 + serial % 100_000:06d}")
            ele["rcept_dt"].append(day.isoformat())  # this API alone writes YYYY-MM-DD
            ele["corp_code"].append(c.corp_code)
            ele["corp_name"].append(c.corp_name)
            ele["repror"].append(str(_pick(rng, people)))
            ele["isu_exctv_rgist_at"].append("등기임원" if registered else "비등기임원")
            ele["isu_exctv_ofcps"].append(str(_pick(rng, ["사내이사", "전무", "상무"] if registered else ["상무", "이사"])))
            ele["isu_main_shrholdr"].append("-")
            ele["sp_stock_lmp_cnt"].append(f"{cnt:,}")
            ele["sp_stock_lmp_irds_cnt"].append(f"{d_cnt:,}")
            ele["sp_stock_lmp_rate"].append(f"{cnt / shares * 100:.2f}")
            ele["sp_stock_lmp_irds_rate"].append(f"{d_cnt / shares * 100:.2f}")
    ents = {"corp_code": "corp_code", "corp_name": "corp_name", "rcept_no": "rcept_no"}
    return [TableData("dart_major_stock", major, entities=ents), TableData("dart_exec_stock", ele, entities=ents)]


_EVENT_BINDS = {"corp_code": Bind("corp_code", pattern=CORP_CODE),
                "bgn_de": Bind.any_date("rcept_dt", "ge"), "end_de": Bind.any_date("rcept_dt", "le")}
_REPORT_BINDS = {"corp_code": Bind("corp_code", pattern=CORP_CODE),
                 "bsns_year": Bind("bsns_year", pattern=r"20(1[5-9]|2\d)"),
                 "reprt_code": Bind("reprt_code", pattern="110(11|12|13|14)")}
_PERIODIC_APIS = {
    "alotMatter": ("dart_alot_matter", "se stock_knd thstrm frmtrm lwfr"),
    "hyslrSttus": ("dart_largest_shareholder", "nm relate stock_knd bsis_posesn_stock_co bsis_posesn_stock_qota_rt "
                   "trmend_posesn_stock_co trmend_posesn_stock_qota_rt rm"),
    "empSttus": ("dart_employee", "fo_bbm sexdstn reform_bfe_emp_co_rgllbr reform_bfe_emp_co_cnttk "
                 "reform_bfe_emp_co_etc rgllbr_co rgllbr_abacpt_labrr_co cnttk_co cnttk_abacpt_labrr_co sm "
                 "avrg_cnwk_sdytrn fyer_salary_totamt jan_salary_am rm"),
    "exctvSttus": ("dart_executive", "nm sexdstn birth_ym ofcps rgist_exctv_at fte_at chrg_job main_career "
                   "mxmm_shrholdr_relate hffc_pd tenure_end_on"),
    "irdsSttus": ("dart_capital_change", "isu_dcrs_de isu_dcrs_stle isu_dcrs_stock_knd isu_dcrs_qy "
                  "isu_dcrs_mstvdv_fval_amount isu_dcrs_mstvdv_amount"),
    "tesstkAcqsDspsSttus": ("dart_treasury_stock", "acqs_mth1 acqs_mth2 acqs_mth3 stock_knd bsis_qy change_qy_acqs "
                            "change_qy_dsps change_qy_incnr trmend_qy rm"),
    "stockTotqySttus": ("dart_stock_total", "se isu_stock_totqy now_to_isu_stock_totqy now_to_dcrs_stock_totqy redc "
                        "profit_incnr rdmstk_repy etc istc_totqy tesstk_co distb_stock_co"),
    "otrCprInvstmntSttus": ("dart_other_corp_investment", "inv_prm frst_acqs_de invstmnt_purps frst_acqs_amount "
                            "bsis_blce_qy bsis_blce_qota_rt bsis_blce_acntbk_amount incrs_dcrs_acqs_dsps_qy "
                            "incrs_dcrs_acqs_dsps_amount incrs_dcrs_evl_lstmn trmend_blce_qy trmend_blce_qota_rt "
                            "trmend_blce_acntbk_amount recent_bsns_year_fnnr_sttus_tot_assets "
                            "recent_bsns_year_fnnr_sttus_thstrm_ntpf"),
    "mrhlSttus": ("dart_minority_shareholder", "se shrholdr_co shrholdr_tot_co shrholdr_rate hold_stock_co "
                  "stock_tot_co hold_stock_rate"),
}

ENDPOINTS += [
    Endpoint("dart", HOST, api, f"dart_major_{api}", binds=_EVENT_BINDS, required=("corp_code", "bgn_de", "end_de"),
             fields=(*_COMMON_EVENT, *(tok.split(":")[0] for tok in spec.split())))
    for api, (_tool, _title, _share, spec) in _MAJOR.items()
]
_SECTION_TABLES = ("dart_alot_matter", "dart_largest_shareholder", "dart_employee", "dart_executive",
                   "dart_capital_change", "dart_treasury_stock", "dart_stock_total", "dart_other_corp_investment",
                   "dart_minority_shareholder")  # in the order _periodic returns them


class SectionHistory:
    """One 정기보고서 주요정보 API over every filed periodic report: the report's sections are generated
    from a stream named by the filing, under the filing's rcept_no (the one 공시검색 lists)."""

    def __init__(self, table: str) -> None:
        self.name = table
        self._index = _SECTION_TABLES.index(table)

    def scope(self, ctx: WorldContext, args: dict[str, str]):
        return args["corp_code"], int(args["bsns_year"]), args["reprt_code"]

    def generate(self, ctx: WorldContext, scope) -> TableData:
        f = filing(ctx, *scope)
        if f is None:
            raise SimError("no_data")
        return _periodic(ctx, [f])[self._index]


ENDPOINTS += [
    Endpoint("dart", HOST, api, table, binds=_REPORT_BINDS, required=("corp_code", "bsns_year", "reprt_code"),
             fields=(*_COMMON_EVENT, *fields.split(), "stlm_dt"), history=SectionHistory(table))
    for api, (table, fields) in _PERIODIC_APIS.items()
]
ENDPOINTS += [
    # corp_code is a comma list of up to 100 codes; more answers status 021 (needs list binds in sim.endpoints).
    Endpoint("dart", HOST, "fnlttMultiAcnt", "dart_account",
             binds={**_REPORT_BINDS, "corp_code": Bind("corp_code", "in", pattern=r"\d{8}(,\d{8})*")},
             required=("corp_code", "bsns_year", "reprt_code"), fields=KEY_FIELDS,
             options={"max_items": 100, "omit_empty": OPTIONAL_KEY_FIELDS}, history=KeyAccountHistory()),
    Endpoint("dart", HOST, "fnlttSinglAcntAll", "dart_account_all",
             binds={**_REPORT_BINDS, "fs_div": Bind("fs_div", pattern="CFS|OFS")},
             required=("corp_code", "bsns_year", "reprt_code", "fs_div"), fields=_ALL_FIELDS,
             options={"omit_empty": OPTIONAL_ALL_FIELDS}, history=AllAccountHistory()),
    Endpoint("dart", HOST, "majorstock", "dart_major_stock", binds={"corp_code": Bind("corp_code", pattern=CORP_CODE)},
             required=("corp_code",)),
    Endpoint("dart", HOST, "elestock", "dart_exec_stock", binds={"corp_code": Bind("corp_code", pattern=CORP_CODE)},
             required=("corp_code",)),
]
