"""Companies shared by DART, KRX, 금융위원회 and 예금보험공사.

One row per corporation, keyed by DART's 8-digit corp_code; listed ones carry the 6-digit 단축코드
(= KRX ISU_SRT_CD = 금융위 srtnCd) and its ISIN; every one carries 법인등록번호 (= KDIC crpno).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from sim.world.names import COMPANY_HEADS, COMPANY_TAILS, nfc, person_names, unique_names
from sim.world.regions import SIGUNGU

# Names anchored so the paper's worked example (라이트론's 전환사채) exists in every world.
ANCHOR_COMPANIES = ["라이트론", "삼한전자", "대양바이오", "한빛테크"]


@dataclass(frozen=True)
class Company:
    corp_code: str
    corp_name: str
    corp_eng_name: str
    stock_code: str  # "" when unlisted
    isin: str
    market: str  # KOSPI / KOSDAQ / KONEX / ""
    corp_cls: str  # Y 유가 / K 코스닥 / N 코넥스 / E 기타
    jurir_no: str
    bizr_no: str
    ceo_nm: str
    sigungu_code: str
    adres: str
    est_dt: str
    acc_mt: str
    induty_code: str
    list_shrs: int
    base_price: int
    modify_date: str
    fin_sector: str  # "" or 은행 / 금융투자 / 생명보험 / 손해보험 / 저축은행 (부보금융회사 of 예금보험공사)
    contact: tuple[str, str, str] = ("", "", "")  # (hm_url, phn_no, fax_no) where real ones are documented


def isin_check_digit(body: str) -> str:
    """ISO 6166 check digit (Luhn over letters expanded to numbers)."""
    digits = "".join(str(int(c, 36)) for c in body)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        v = int(ch)
        if i % 2 == 0:
            v *= 2
            if v > 9:
                v -= 9
        total += v
    return str((10 - total % 10) % 10)


def isin_of(stock_code: str) -> str:
    body = f"KR7{stock_code}00"
    return body + isin_check_digit(body)


# (sector, name suffix): about 6% of companies are 부보금융회사, named as such.
FIN_SECTORS = [("은행", "은행"), ("금융투자", "증권"), ("생명보험", "생명보험"), ("손해보험", "화재해상보험"),
               ("저축은행", "저축은행")]

_ROMAN = {"전자": "Electronics", "바이오": "Bio", "테크": "Tech", "제약": "Pharm", "화학": "Chemical"}


def build_companies(ctx) -> list[Company]:
    n = ctx.n(400, 6000)
    rng = ctx.rng("companies")
    heads = rng.integers(0, len(COMPANY_HEADS), (n * 3, 2))
    tails = rng.integers(0, len(COMPANY_TAILS), n * 3)
    two_part = rng.random(n * 3) < 0.35  # most names are head+tail; the rest add a second head
    pool = [
        nfc(COMPANY_HEADS[h[0]] + (COMPANY_HEADS[h[1]] if two else "") + COMPANY_TAILS[t])
        for h, t, two in zip(heads, tails, two_part, strict=True)
    ]
    # Heads recur with other tails ("한빛테크", "한빛테크홀딩스" never, but "한빛전자" and "한빛바이오" do),
    # so a name search can return one, a few or no companies, as the real corp list does.
    names = unique_names(list(ANCHOR_COMPANIES) + pool, n)
    ceos = person_names(ctx.rng("companies", "ceo"), n)
    corp_codes = sorted({f"{int(x):08d}" for x in rng.choice(1_500_000, size=n, replace=False) + 100_000})
    # Generated codes never take a well-known company's real one (appended below with its own codes).
    real_corp = {r.corp_code for r in WELL_KNOWN}
    spare = (f"{100_000 + 1_500_000 + k:08d}" for k in range(len(WELL_KNOWN)))
    corp_codes = sorted(next(spare) if code in real_corp else code for code in corp_codes)
    listed = rng.random(n) < 0.45
    listed[: len(ANCHOR_COMPANIES)] = True
    market_draw = rng.random(n)
    stock_codes = rng.choice(np.arange(1000, 480000, 10), size=n, replace=False)
    real_stock = {int(r.stock_code) for r in WELL_KNOWN}
    stock_codes = np.array([480_000 + 10 * k if int(x) in real_stock else int(x)
                            for k, x in enumerate(stock_codes.tolist())])
    fin_draw = rng.random(n)
    fin_kind = rng.integers(0, len(FIN_SECTORS), n)
    used = set(names)
    out = []
    for i, name in enumerate(names):
        fin_sector = FIN_SECTORS[int(fin_kind[i])][0] if fin_draw[i] < 0.06 and i >= len(ANCHOR_COMPANIES) else ""
        if fin_sector:
            renamed = name[: max(2, len(name) - 2)] + FIN_SECTORS[int(fin_kind[i])][1]
            if renamed in used:
                fin_sector = ""
            else:
                used.discard(name)
                used.add(renamed)
                name = renamed
        is_listed = bool(listed[i])
        market = ""
        corp_cls = "E"
        stock = ""
        if is_listed:
            market, corp_cls = ("KOSPI", "Y") if market_draw[i] < 0.38 else (
                ("KOSDAQ", "K") if market_draw[i] < 0.95 else ("KONEX", "N"))
            stock = f"{int(stock_codes[i]):06d}"
        sgg = SIGUNGU[int(rng.integers(0, len(SIGUNGU)))]
        est = dt.date(1960, 1, 1) + dt.timedelta(days=int(rng.integers(0, 22000)))
        eng_tail = next((v for k, v in _ROMAN.items() if name.endswith(k)), "Co., Ltd.")
        out.append(
            Company(
                corp_code=corp_codes[i],
                corp_name=name,
                corp_eng_name=f"{name} {eng_tail}" if eng_tail != "Co., Ltd." else f"{name} Co., Ltd.",
                stock_code=stock,
                isin=isin_of(stock) if stock else "",
                market=market,
                corp_cls=corp_cls,
                jurir_no=f"{int(rng.integers(110111, 285011)):06d}{int(rng.integers(0, 10**7)):07d}",
                bizr_no=f"{int(rng.integers(101, 899)):03d}{int(rng.integers(10, 99)):02d}{int(rng.integers(0, 10**5)):05d}",
                ceo_nm=ceos[i],
                sigungu_code=sgg.code,
                adres=f"{sgg.name} {name}로 {int(rng.integers(1, 400))}",
                est_dt=est.strftime("%Y%m%d"),
                acc_mt="12" if rng.random() < 0.9 else "03",
                induty_code=f"{int(rng.integers(100, 999))}",
                list_shrs=int(rng.integers(3_000_000, 300_000_000)) if is_listed else 0,
                base_price=int(rng.choice([1000, 2500, 5000, 12000, 30000, 75000])) * int(rng.integers(1, 6)),
                fin_sector=fin_sector,
                modify_date=(ctx.today - dt.timedelta(days=int(rng.integers(1, 900)))).strftime("%Y%m%d"),
            )
        )
    used_names = {c.corp_name for c in out}
    for r in WELL_KNOWN:
        if r.corp_name in used_names:
            raise ValueError(f"generated company takes a well-known name: {r.corp_name}")
        out.append(r.company(ctx))
    return out


@dataclass(frozen=True)
class RealCompany:
    """A well-known listed company under its real name and codes, as clients and tutorials hard-code them.

    corp_code, stock_code, name, market, 설립일 and address are the public ones. 법인등록번호/사업자등록번호
    are real where a published company.json answer shows them (삼성전자); elsewhere `jurir_no`/`bizr_no`
    are left empty here and generated in the usual format (unconfirmed, so not presented as real).
    Shares and the price level are approximate (early 2025) and only set the scale of generated series.
    """

    corp_code: str
    stock_code: str
    corp_name: str
    corp_eng_name: str
    ceo_nm: str
    adres: str
    sigungu_code: str
    est_dt: str
    induty_code: str
    list_shrs: int
    base_price: int
    jurir_no: str = ""
    bizr_no: str = ""
    contact: tuple[str, str, str] = ("", "", "")

    def company(self, ctx) -> Company:
        rng = ctx.rng("companies-real", self.corp_code)
        return Company(
            corp_code=self.corp_code, corp_name=self.corp_name, corp_eng_name=self.corp_eng_name,
            stock_code=self.stock_code, isin=isin_of(self.stock_code), market="KOSPI", corp_cls="Y",
            jurir_no=self.jurir_no or f"{int(rng.integers(110111, 285011)):06d}{int(rng.integers(0, 10**7)):07d}",
            bizr_no=self.bizr_no or f"{int(rng.integers(101, 899)):03d}{int(rng.integers(10, 99)):02d}"
                                    f"{int(rng.integers(0, 10**5)):05d}",
            ceo_nm=self.ceo_nm, sigungu_code=self.sigungu_code, adres=self.adres, est_dt=self.est_dt,
            acc_mt="12", induty_code=self.induty_code, list_shrs=self.list_shrs, base_price=self.base_price,
            modify_date=(ctx.today - dt.timedelta(days=int(rng.integers(1, 300)))).strftime("%Y%m%d"),
            fin_sector="", contact=self.contact,
        )


WELL_KNOWN: tuple[RealCompany, ...] = (
    RealCompany("00126380", "005930", "삼성전자", "SAMSUNG ELECTRONICS CO,.LTD", "전영현",
                "경기도 수원시 영통구 삼성로 129 (매탄동)", "41110", "19690113", "264", 5_969_782_550, 53_400,
                jurir_no="1301110006246", bizr_no="1248100998",
                contact=("www.samsung.com/sec", "02-2255-0114", "031-200-7538")),
    RealCompany("00164779", "000660", "SK하이닉스", "SK hynix Inc.", "곽노정",
                "경기도 이천시 부발읍 경충대로 2091", "41500", "19491015", "261", 728_002_365, 172_000),
    RealCompany("00401731", "066570", "LG전자", "LG ELECTRONICS INC.", "조주완",
                "서울특별시 영등포구 여의대로 128", "11560", "20020401", "264", 163_647_814, 83_000),
    RealCompany("00164742", "005380", "현대자동차", "HYUNDAI MOTOR COMPANY", "이동석",
                "서울특별시 서초구 헌릉로 12", "11650", "19671229", "301", 204_757_766, 212_000),
    RealCompany("00266961", "035420", "NAVER", "NAVER Corporation", "최수연",
                "경기도 성남시 분당구 불정로 6", "41130", "19990602", "631", 158_437_008, 200_000),
    RealCompany("00258801", "035720", "카카오", "Kakao Corp.", "정신아",
                "제주특별자치도 제주시 첨단로 242", "50110", "19950216", "631", 442_000_000, 38_000),
)


