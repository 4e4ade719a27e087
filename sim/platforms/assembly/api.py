"""열린국회정보 (open.assembly.go.kr): members, bills, proposers, plenary votes, committees, schedule.

One generator builds every table from the same people and bills, so codes join across services:
`MONA_CD` (the 22대 roster) = `NAAS_CD` (ALLNAMEMBER) = `RST_MONA_CD`/`PUBL_MONA_CD` (bills) =
`NASS_CD` (BILLINFOPPSR) = the vote rows' `MONA_CD`; `BILL_ID` joins bill lists, details, proposers,
tallies and per-member votes.

Simplifications, stated where a reader would look for them:
- every 대 has 300 seats (historically 200–299 before the 19대);
- bills (and so proposers, tallies) exist for the 20–22대 only; per-member vote rows for the 22대 only,
  so `nojepdqqaweusdfbi` with an older AGE answers INFO-200 as the real one does for 19대 and older;
- a small share of tallies (`YES_TCNT`) differ from the sum of per-member 찬성 rows, a known
  inconsistency of the real service that clients must tolerate.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import LAW_TOPICS, nfc, person_names, unique_names
from sim.world.regions import SIDO_BY_CODE, SIGUNGU
from sim.world.table import Cond, TableData

HOST = "open.assembly.go.kr"
PREFIX = "/portal/openapi/"
AGES = (20, 21, 22)
AGE_START = {20: dt.date(2016, 5, 30), 21: dt.date(2020, 5, 30), 22: dt.date(2024, 5, 30)}
AGE_END = {20: dt.date(2020, 5, 29), 21: dt.date(2024, 5, 29)}
# Member-proposed 법률안 per 대 at full scale (22대 as observed; 20/21대 as the portal's totals).
MEMBER_BILLS = {20: 21_594, 21: 23_655, 22: 19_058}
MEMBER_BILLS_SMALL = {20: 150, 21: 220, 22: 420}

BILL_ID = r"PRC_[A-Z0-9]{29}"
BILL_NO = r"\d{7}"
MONA_CD = r"[0-9A-Z]{8}"
AGE = r"\d{1,2}"
LIKMS = "https://likms.assembly.go.kr/bill/billDetail.do?billId="

_ENTITIES = {"BILL_ID": "bill_id", "BILL_NO": "bill_no", "AGE": "assembly_age", "MONA_CD": "mona_cd",
             "RST_MONA_CD": "mona_cd", "COMMITTEE_ID": "committee_id", "CURR_COMMITTEE_ID": "committee_id",
             "HG_NM": "member_name", "RST_PROPOSER": "member_name", "NASS_CD": "mona_cd",
             "PPSR_NM": "member_name", "HR_DEPT_CD": "committee_id", "DEPT_CD": "committee_id",
             "NAAS_CD": "mona_cd", "NAAS_NM": "member_name", "BILL_NAME": "bill_name", "BILL_NM": "bill_name"}


def tables(ctx: WorldContext) -> list[TableData]:
    people = build_members(ctx)
    bills = _bills(ctx, people)
    voted, counts = _vote_tallies(ctx, bills)
    return [
        _roster(people.current),
        _all_members(people.everyone),
        _careers(people.current),
        _sns(ctx, people.current),
        _committees(people.current),
        _committee_members(people.current),
        TableData("assembly_bill", bills.cols, entities=_entities(bills.cols)),
        _proposers(bills, people.everyone),
        voted,
        _votes(ctx, people.current, voted, counts),
        _plenary_schedule(ctx),
    ]


def _entities(columns: dict) -> dict[str, str]:
    return {k: v for k, v in _ENTITIES.items() if k in columns}


def _table(name: str, rows: list[dict]) -> TableData:
    cols: dict[str, list] = {k: [r[k] for r in rows] for k in rows[0]}
    return TableData(name, cols, entities=_entities(cols))


# --- people ----------------------------------------------------------------------------------------

_COMMITTEES = (  # (구분코드, 구분명, HR_DEPT_CD, 위원회명, 정원); codes are simulator-made 7-digit ids
    ("C0", "상임위원회", "9700005", "국회운영위원회", 28), ("C0", "상임위원회", "9700006", "법제사법위원회", 18),
    ("C0", "상임위원회", "9700008", "정무위원회", 24), ("C0", "상임위원회", "9700300", "기획재정위원회", 26),
    ("C0", "상임위원회", "9700480", "교육위원회", 16),
    ("C0", "상임위원회", "9700481", "과학기술정보방송통신위원회", 21),
    ("C0", "상임위원회", "9700019", "외교통일위원회", 22), ("C0", "상임위원회", "9700020", "국방위원회", 17),
    ("C0", "상임위원회", "9700341", "행정안전위원회", 22), ("C0", "상임위원회", "9700482", "문화체육관광위원회", 17),
    ("C0", "상임위원회", "9700407", "농림축산식품해양수산위원회", 19),
    ("C0", "상임위원회", "9700408", "산업통상자원중소벤처기업위원회", 30),
    ("C0", "상임위원회", "9700409", "보건복지위원회", 24), ("C0", "상임위원회", "9700038", "환경노동위원회", 16),
    ("C0", "상임위원회", "9700410", "국토교통위원회", 30), ("C0", "상임위원회", "9700406", "정보위원회", 12),
    ("C0", "상임위원회", "9700342", "여성가족위원회", 17),
    ("C1", "상설특별위원회", "9700121", "예산결산특별위원회", 50),
    ("C1", "상설특별위원회", "9700309", "윤리특별위원회", 12),
    ("C2", "특별위원회", "9700512", "연금개혁특별위원회", 13), ("C2", "특별위원회", "9700513", "정치개혁특별위원회", 18),
)
# Committees a member joins in addition to a primary one (겸임), as the real roster does.
_CONCURRENT = ("9700005", "9700406", "9700342", "9700121", "9700309", "9700512", "9700513")

_PARTIES_22 = (("더불어민주당", 170), ("국민의힘", 107), ("조국혁신당", 12), ("개혁신당", 3), ("진보당", 3),
               ("기본소득당", 1), ("사회민주당", 1), ("무소속", 3))
_LEAN = {"더불어민주당": -0.6, "국민의힘": 0.7, "조국혁신당": -0.3, "진보당": 0.1, "기본소득당": -0.1,
         "사회민주당": -0.1}
_PARTIES_BY_ERA = {  # (대 from, parties with weights) — historical major parties, coarse
    21: (("더불어민주당", 0.58), ("국민의힘", 0.34), ("정의당", 0.03), ("국민의당", 0.01), ("무소속", 0.04)),
    20: (("더불어민주당", 0.41), ("자유한국당", 0.38), ("국민의당", 0.13), ("정의당", 0.02), ("무소속", 0.06)),
    19: (("새누리당", 0.51), ("민주통합당", 0.42), ("통합진보당", 0.04), ("무소속", 0.03)),
    18: (("한나라당", 0.51), ("통합민주당", 0.27), ("자유선진당", 0.06), ("친박연대", 0.05), ("무소속", 0.11)),
    17: (("열린우리당", 0.51), ("한나라당", 0.40), ("민주노동당", 0.03), ("새천년민주당", 0.03), ("무소속", 0.03)),
    1: (("민주공화당", 0.35), ("신민당", 0.30), ("민주정의당", 0.15), ("통일민주당", 0.1), ("무소속", 0.1)),
}
_SURNAME_HANJA = dict(zip(
    "김이박최정강조윤장임한오서신권황안송전홍유고문양손배백허남심노하곽성차주우구민류나진지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용",
    "金李朴崔鄭姜趙尹張林韓吳徐申權黃安宋全洪柳高文梁孫裵白許南沈盧河郭成車朱禹具閔柳羅陳池嚴蔡元千方孔玄咸卞廉呂秋都蘇石宣薛馬吉延魏表明奇潘王琴玉陸印孟諸牟卓鞠魚殷片龍",
    strict=True))
_GIVEN_HANJA = dict(zip("민서지현준우도윤하은수영진호성재정유연희경태동혁상훈승예주원아윤채빈혜인규석철광명숙미선자옥순",
                        "民瑞智賢俊宇道允夏恩秀英珍浩成在正裕然熙敬泰東赫相勳承藝周元雅潤彩彬惠仁圭錫哲光明淑美善子玉順",
                        strict=True))
_SURNAME_ROMAN = {"김": "KIM", "이": "LEE", "박": "PARK", "최": "CHOI", "정": "JUNG", "강": "KANG", "조": "CHO",
                  "윤": "YUN", "장": "JANG", "임": "LIM", "한": "HAN", "오": "OH", "서": "SEO", "신": "SHIN",
                  "권": "KWON", "황": "HWANG", "안": "AHN", "송": "SONG", "전": "JEON", "홍": "HONG", "유": "YOO",
                  "고": "KO", "문": "MOON", "양": "YANG", "손": "SON", "배": "BAE", "백": "BAEK", "노": "NOH"}
_INITIAL = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_MEDIAL = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi",
           "yu", "eu", "ui", "i")
_FINAL = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t",
          "ng", "t", "t", "k", "t", "p", "t")
_CAREERS = ("변호사", "대학교 교수", "시민단체 대표", "기획재정부 차관", "도의회 의원", "언론인", "노동조합 위원장",
            "의사", "검사", "경찰청 차장", "구청장", "중소기업 대표", "당 대변인", "청와대 비서관", "회계사")


def _romanize(syllable: str) -> str:
    code = ord(syllable) - 0xAC00
    if not 0 <= code < 11172:
        return syllable
    return _INITIAL[code // 588] + _MEDIAL[code % 588 // 28] + _FINAL[code % 28]


def _eng_name(name: str) -> str:
    """Revised Romanization with the customary surname spellings: 김민서 → KIM Minseo."""
    surname = _SURNAME_ROMAN.get(name[0], _romanize(name[0]).upper())
    given = "".join(_romanize(c) for c in name[1:])
    return f"{surname} {given.capitalize()}"


@dataclass
class Member:
    code: str
    name: str
    hanja: str
    eng: str
    birth: str
    birth_kind: str
    sex: str
    ages: list[int]
    parties: list[str]
    districts: list[str]
    elect_kinds: list[str]
    idx: int = 0  # position in People.everyone
    seat: int = 0
    job: str = "위원"
    committees: list[tuple[str, str]] = field(default_factory=list)
    roles: list[tuple[str, str]] = field(default_factory=list)
    tel: str = ""
    email: str = ""
    homepage: str = ""
    staff: str = ""
    secretary: str = ""
    secretary2: str = ""
    title: str = ""
    office: str = ""
    district_cd: str = ""

    @property
    def party(self) -> str:
        return self.parties[-1]

    @property
    def district(self) -> str:
        return self.districts[-1]

    @property
    def elect_kind(self) -> str:
        return self.elect_kinds[-1]

    @property
    def reelect(self) -> str:
        return "초선" if len(self.ages) == 1 else ("재선" if len(self.ages) == 2 else f"{len(self.ages)}선")

    @property
    def party_cd(self) -> str:
        return f"{101000 + sum(ord(c) for c in self.party) % 997:06d}"

    @property
    def party_lean(self) -> float:
        return _LEAN.get(self.party, 0.2)

    def party_at(self, age: int) -> str:
        return self.parties[self.ages.index(age)]


@dataclass
class People:
    current: list[Member]
    everyone: list[Member]
    by_age: dict[int, list[Member]]


def committee_specs() -> tuple[tuple[str, str, str, str, int], ...]:
    return _COMMITTEES


def _districts() -> list[tuple[str, str]]:
    """254 지역구 (name, code) from the real 시군구 list: 갑/을 everywhere, 병 in the first 72."""
    out = []
    for i, s in enumerate(SIGUNGU):
        for k, suffix in enumerate(("갑", "을", "병")):
            if suffix == "병" and i >= 72:
                continue
            out.append((f"{SIDO_BY_CODE[s.sido].short} {s.name}{suffix}", f"{s.code}{k + 1:02d}"))
    return sorted(out[:254], key=lambda d: d[1])


def _party_for(u: float, age: int) -> str:
    """The party a uniform draw u picks among the era's parties (weights as listed)."""
    era = max(e for e in _PARTIES_BY_ERA if e <= age)
    parties = _PARTIES_BY_ERA[era]
    total = sum(w for _, w in parties)
    acc = 0.0
    for name, weight in parties:
        acc += weight / total
        if u < acc:
            return name
    return parties[-1][0]


def _mona_codes(rng: np.random.Generator, n: int) -> list[str]:
    seen: dict[str, None] = {}
    while len(seen) < n:
        letters = rng.integers(0, 26, 4)
        digits = rng.integers(0, 10, 4)
        code = "".join(chr(65 + x) for x in letters[:3]) + "".join(map(str, digits)) + chr(65 + letters[3])
        seen.setdefault(code)
    return list(seen)


def build_members(ctx: WorldContext) -> People:
    """The 22대 roster, then earlier 대 filled back to 300 seats each with members who left."""
    rng = ctx.rng("assembly", "members")
    min_age = ctx.n(19, 1)
    districts = _districts()
    terms = rng.choice(6, 300, p=(0.44, 0.26, 0.15, 0.09, 0.04, 0.02)) + 1
    spans: list[tuple[int, int]] = [(22 - int(t) + 1, 22) for t in terms]
    for age in range(21, min_age - 1, -1):
        need = 300 - sum(1 for lo, hi in spans if lo <= age <= hi)
        lengths = rng.choice(5, max(need, 0), p=(0.45, 0.28, 0.15, 0.08, 0.04)) + 1
        spans.extend((max(1, age - int(n) + 1), age) for n in lengths)
    n = len(spans)
    names = unique_names(person_names(ctx.rng("assembly", "names"), n * 3 + 500), n)
    codes = _mona_codes(rng, n)
    members: list[Member] = []
    for (lo, hi), name, code in zip(spans, names, codes, strict=True):
        ages = list(range(max(lo, 1), hi + 1))
        born = 1925 + 4 * (hi - 1) // 2 + int(rng.integers(-8, 9)) if hi < 22 else int(rng.integers(1952, 1993))
        birth = dt.date(born, int(rng.integers(1, 13)), int(rng.integers(1, 29)))
        elect = ["비례대표" if rng.random() < 0.15 else "지역구" for _ in ages]
        dist = [("비례대표" if e == "비례대표" else districts[int(rng.integers(0, len(districts)))][0]) for e in elect]
        hanja = _SURNAME_HANJA.get(name[0], "金") + "".join(_GIVEN_HANJA.get(c, "一") for c in name[1:])
        members.append(Member(code=code, name=name, hanja=hanja, eng=_eng_name(name), birth=birth.isoformat(),
                              birth_kind="음" if rng.random() < 0.12 else "양",
                              sex="여" if rng.random() < (0.2 if hi >= 20 else 0.05) else "남", ages=ages,
                              parties=[_party_for(float(u), a) for u, a in zip(rng.random(len(ages)), ages, strict=True)],
                              districts=dist, elect_kinds=elect, idx=len(members)))
    current = members[:300]
    _seat_current(ctx, current, districts)
    by_age = {a: [m for m in members if a in m.ages] for a in range(min_age, 23)}
    return People(current=current, everyone=members, by_age=by_age)


def _seat_current(ctx: WorldContext, current: list[Member], districts: list[tuple[str, str]]) -> None:
    """22대 specifics: party (real seat shares), 254 지역구 + 46 비례, committees, office details."""
    rng = ctx.rng("assembly", "seat")
    parties = [p for p, k in _PARTIES_22 for _ in range(k)]
    order = rng.permutation(300)
    staff_names = person_names(ctx.rng("assembly", "staff"), 300 * 7)
    for k, idx in enumerate(order):
        m = current[int(idx)]
        m.seat = k + 1
        m.parties[-1] = parties[k]
        if k < 254:
            m.districts[-1], m.district_cd, m.elect_kinds[-1] = districts[k][0], districts[k][1], "지역구"
        else:
            m.districts[-1], m.district_cd, m.elect_kinds[-1] = "비례대표", "9999900", "비례대표"
        rom = _eng_name(m.name).split(" ", 1)[1].lower()
        m.tel = f"02-784-{1000 + k * 31 % 9000:04d}"
        m.email = f"{rom}{m.seat}@assembly.go.kr"
        m.homepage = f"https://blog.naver.com/{rom}{m.seat}" if rng.random() < 0.8 else ""
        s = staff_names[k * 7:(k + 1) * 7]
        m.staff, m.secretary, m.secretary2 = f"{s[0]}, {s[1]}", f"{s[2]}, {s[3]}", f"{s[4]}, {s[5]}, {s[6]}"
        m.office = f"의원회관 {3 + k % 8}{(k * 7) % 50 + 1:02d}호"
        past = _CAREERS[int(rng.integers(0, len(_CAREERS)))]
        m.title = f"현) 제22대 국회의원 ({m.party})\r\n전) {past}"
    standing = [c for c in _COMMITTEES if c[2] not in _CONCURRENT]
    weights = np.asarray([c[4] for c in standing], dtype=float)
    for m in sorted(current, key=lambda m: m.seat):
        primary = standing[int(rng.choice(len(standing), p=weights / weights.sum()))]
        m.committees = [(primary[2], primary[3])]
    for _, _, code, name, limit in _COMMITTEES:
        if code not in _CONCURRENT:
            continue
        for idx in rng.choice(300, limit, replace=False):
            current[int(idx)].committees.append((code, name))
    for _, _, code, _, _ in _COMMITTEES:
        seated = sorted((m for m in current if any(c[0] == code for c in m.committees)), key=lambda m: m.seat)
        if not seated:
            continue
        chair = seated[int(rng.integers(0, len(seated)))]
        chair.roles.append((code, "위원장"))
        for party in ("더불어민주당", "국민의힘"):
            pool = [m for m in seated if m.party == party and m is not chair]
            if pool:
                pool[int(rng.integers(0, len(pool)))].roles.append((code, "간사"))
    for m in current:
        m.job = "위원장" if any(r == "위원장" for _, r in m.roles) else ("간사" if m.roles else "위원")


# --- members ---------------------------------------------------------------------------------------


def _roster(current: list[Member]) -> TableData:
    """nwvrqwxyaytdsfvhu 국회의원 인적사항: the sitting 300, in 가나다 order as the portal lists them."""
    rows = []
    for m in sorted(current, key=lambda m: (m.name, m.code)):
        rows.append({
            "HG_NM": m.name, "HJ_NM": m.hanja, "ENG_NM": m.eng, "BTH_GBN_NM": m.birth_kind,
            "BTH_DATE": m.birth, "JOB_RES_NM": m.job, "POLY_NM": m.party, "ORIG_NM": m.district,
            "ELECT_GBN_NM": m.elect_kind, "CMIT_NM": m.committees[0][1], "CMITS": ", ".join(c[1] for c in m.committees),
            "REELE_GBN_NM": m.reelect, "UNITS": ", ".join(f"제{a}대" for a in m.ages), "SEX_GBN_NM": m.sex,
            "TEL_NO": m.tel, "E_MAIL": m.email, "HOMEPAGE": m.homepage, "STAFF": m.staff, "SECRETARY": m.secretary,
            "SECRETARY2": m.secretary2, "MONA_CD": m.code, "MEM_TITLE": m.title, "ASSEM_ADDR": m.office,
        })
    return _table("assembly_member", rows)


def _all_members(everyone: list[Member]) -> TableData:
    """ALLNAMEMBER 국회의원 정보 통합: every member of every 대; per-term values joined by '/'."""
    rows = []
    for m in sorted(everyone, key=lambda m: (m.name, m.code)):
        current = m.ages[-1] == 22
        rows.append({
            "NAAS_CD": m.code, "NAAS_NM": m.name, "NAAS_CH_NM": m.hanja, "NAAS_EN_NM": m.eng,
            "BIRDY_DIV_CD": m.birth_kind, "BIRDY_DT": m.birth, "DTY_NM": m.job if current else "",
            "PLPT_NM": "/".join(m.parties), "ELECD_NM": "/".join(m.districts),
            "ELECD_DIV_NM": "/".join(m.elect_kinds), "CMIT_NM": m.committees[0][1] if current else "",
            "BLNG_CMIT_NM": ", ".join(c[1] for c in m.committees) if current else "",
            "RLCT_DIV_NM": m.reelect, "GTELT_ERACO": ", ".join(f"제{a}대" for a in m.ages), "NTR_DIV": m.sex,
            "NAAS_TEL_NO": m.tel if current else "", "NAAS_EMAIL_ADDR": m.email if current else "",
            "NAAS_HP_URL": m.homepage if current else "", "AIDE_NM": m.staff if current else "",
            "CHF_SCRT_NM": m.secretary if current else "", "SCRT_NM": m.secretary2 if current else "",
            "BRF_HST": m.title, "OFFM_RNUM_NO": m.office.removeprefix("의원회관 ") if current else "",
            "NAAS_PIC": f"https://www.assembly.go.kr/static/portal/img/openassm/{m.code}.jpg",
        })
    return _table("assembly_allmember", rows)


# The terms of the 1st–12th 대 as they were (a war, two coups, the Yushin constitution cut or stretched
# them); since the 13th every term runs four years from 30 May (제22대 2024.05.30 ~ 2028.05.29).
_EARLY_TERMS = {
    1: ("1948.05.31", "1950.05.30"), 2: ("1950.05.31", "1954.05.30"), 3: ("1954.05.31", "1958.05.30"),
    4: ("1958.05.31", "1960.07.28"), 5: ("1960.07.29", "1961.05.16"), 6: ("1963.12.17", "1967.06.30"),
    7: ("1967.07.01", "1971.06.30"), 8: ("1971.07.01", "1972.10.17"), 9: ("1973.03.12", "1979.03.11"),
    10: ("1979.03.12", "1980.10.27"), 11: ("1981.04.11", "1985.04.10"), 12: ("1985.04.11", "1988.05.29"),
}


def term(age: int) -> str:
    """The 대's term as 의원이력 states it: 'YYYY.MM.DD ~ YYYY.MM.DD'."""
    if age in _EARLY_TERMS:
        start, end = _EARLY_TERMS[age]
    else:
        year = 1988 + 4 * (age - 13)
        start, end = f"{year}.05.30", f"{year + 4}.05.29"
    return f"{start} ~ {end}"


def _careers(current: list[Member]) -> TableData:
    """nexgtxtmaamffofof 국회의원 의원이력: one row per term served (about two per member)."""
    rows = []
    for m in current:
        for age in m.ages:
            rows.append({"HG_NM": m.name, "HJ_NM": m.hanja, "FRTO_DATE": term(age),
                         "PROFILE_SJ": f"제{age}대 국회의원({m.parties[m.ages.index(age)]})",
                         "MONA_CD": m.code, "UNIT_CD": f"1000{age:02d}", "UNIT_NM": f"제{age}대"})
    return _table("assembly_member_career", rows)


def _sns(ctx: WorldContext, current: list[Member]) -> TableData:
    """negnlnyvatsjwocar 국회의원 SNS정보: a URL column is empty where the member has no account."""
    rng = ctx.rng("assembly", "sns")
    rows = []
    for m in sorted(current, key=lambda m: m.code):
        has = rng.random(4) < (0.55, 0.85, 0.6, 0.45)
        handle = m.email.split("@")[0]
        rows.append({"HG_NM": m.name, "T_URL": f"https://x.com/{handle}" if has[0] else "",
                     "F_URL": f"https://www.facebook.com/{handle}" if has[1] else "",
                     "Y_URL": f"https://www.youtube.com/@{handle}" if has[2] else "",
                     "B_URL": f"https://blog.naver.com/{handle}" if has[3] else "", "MONA_CD": m.code})
    return _table("assembly_member_sns", rows)


def _committees(current: list[Member]) -> TableData:
    """nxrvzonlafugpqjuh 위원회 현황 정보: chair, 간사, seat counts from the roster itself."""
    rows = []
    for div_cd, div_nm, code, name, limit in committee_specs():
        seated = [m for m in current if any(c[0] == code for c in m.committees)]
        chair = next((m.name for m in seated if (code, "위원장") in m.roles), "")
        secretaries = ", ".join(m.name for m in seated if (code, "간사") in m.roles)
        ruling = sum(1 for m in seated if m.party == "더불어민주당")
        rows.append({"CMT_DIV_CD": div_cd, "CMT_DIV_NM": div_nm, "HR_DEPT_CD": code, "COMMITTEE_NAME": name,
                     "HG_NM": chair, "HG_NM_LIST": secretaries, "LIMIT_CNT": limit, "CURR_CNT": len(seated),
                     "POLY99_CNT": len(seated) - ruling, "POLY_CNT": ruling})
    return _table("assembly_committee", rows)


def _committee_members(current: list[Member]) -> TableData:
    """nktulghcadyhmiqxi 위원회 위원 명단: one row per (committee, member)."""
    rows = []
    order = {code: i for i, (_, _, code, _, _) in enumerate(committee_specs())}
    for m in sorted(current, key=lambda m: m.name):
        for code, name in m.committees:
            role = next((r for c, r in m.roles if c == code), "위원")
            rows.append({"DEPT_CD": code, "DEPT_NM": name, "JOB_RES_NM": role, "HG_NM": m.name, "HJ_NM": m.hanja,
                         "ORIG_NM": m.district, "POLY_NM": m.party, "MONA_CD": m.code, "ASSEM_TEL": m.tel,
                         "ASSEM_EMAIL": m.email, "ROOM_NO": m.office.removeprefix("의원회관 "),
                         "STAFF": m.staff, "SECRETARY": m.secretary, "SECRETARY2": m.secretary2,
                         "_order": order[code]})
    rows.sort(key=lambda r: (r["_order"], r["JOB_RES_NM"] != "위원장", r["JOB_RES_NM"] != "간사", r["HG_NM"]))
    for r in rows:
        del r["_order"]
    return _table("assembly_committee_member", rows)


# --- bills -----------------------------------------------------------------------------------------

_RESULTS_CLOSED = (("임기만료폐기", 0.58), ("대안반영폐기", 0.27), ("원안가결", 0.055), ("수정가결", 0.045),
                   ("철회", 0.035), ("폐기", 0.01), ("수정안반영폐기", 0.004), ("부결", 0.001))
# The 22대 is sitting: most bills are pending (PROC_RESULT null on the wire, "" here).
_RESULTS_OPEN = (("", 0.775), ("대안반영폐기", 0.13), ("원안가결", 0.03), ("수정가결", 0.02), ("철회", 0.035),
                 ("폐기", 0.006), ("수정안반영폐기", 0.003), ("부결", 0.001))
_PASSED = ("원안가결", "수정가결")


def _bill_ids(rng: np.random.Generator, n: int) -> list[str]:
    """`PRC_` + alternating letter/digit pairs, as the portal's ids look (e.g. PRC_Y2Z6X0…)."""
    chars = np.empty((n, 29), dtype=np.uint8)
    chars[:, 0::2] = rng.integers(65, 91, (n, 15), dtype=np.uint8)
    chars[:, 1::2] = rng.integers(48, 58, (n, 14), dtype=np.uint8)
    return ["PRC_" + s.decode() for s in chars.view("S29").ravel().tolist()]


def _bill_name(topic: str, kind: str) -> str:
    stem = f"{topic} 법률" if topic.endswith("관한") else f"{topic}법"
    return nfc(f"{stem} {kind}")


def _iso(days: np.ndarray, base: dt.date) -> list[str]:
    """ISO dates for day offsets from base; -1 marks no date ("")."""
    stamps = np.datetime64(base) + days.astype("timedelta64[D]")
    text = np.datetime_as_string(stamps, unit="D").astype(object)
    text[days < 0] = ""
    return text.tolist()


@dataclass
class Bills:
    cols: dict[str, list]
    proposers: list[list[Member]]  # per bill row, 대표발의자 first; [] for government/chair bills


def _bills(ctx: WorldContext, people: People) -> Bills:
    """One row per 의안 of the 20–22대 (member, government and committee-chair bills), newest first."""
    cols: dict[str, list] = {}
    proposers: list[list[Member]] = []
    committees = [c for c in committee_specs() if c[0] == "C0" and c[2] not in _CONCURRENT]
    for age in AGES:
        block, who = _age_bills(ctx, age, people.by_age[age], committees)
        for key, values in block.items():
            cols.setdefault(key, []).extend(values)
        proposers.extend(who)
    order = sorted(range(len(cols["BILL_NO"])), key=cols["BILL_NO"].__getitem__, reverse=True)
    return Bills({k: [v[i] for i in order] for k, v in cols.items()}, [proposers[i] for i in order])


def _age_bills(ctx: WorldContext, age: int, seated: list[Member], committees: list) -> tuple[dict, list]:
    rng = ctx.rng("assembly-bills", str(age))
    start = AGE_START[age]
    end = AGE_END.get(age, ctx.today - dt.timedelta(days=1))
    n_member = ctx.n(MEMBER_BILLS_SMALL[age], MEMBER_BILLS[age])
    n_gov, n_chair = max(3, n_member * 6 // 100), max(4, n_member * 5 // 100)
    n = n_member + n_gov + n_chair
    kinds = np.asarray(["의원"] * n_member + ["정부"] * n_gov + ["위원장"] * n_chair, dtype=object)
    kinds = kinds[rng.permutation(n)]
    span = (end - start).days
    day = np.sort(rng.integers(0, span + 1, n))
    outcomes = _RESULTS_OPEN if age == 22 else _RESULTS_CLOSED
    labels = np.asarray([o[0] for o in outcomes], dtype=object)
    probs = np.asarray([o[1] for o in outcomes])
    result = labels[rng.choice(len(labels), n, p=probs / probs.sum())]
    draw = rng.random((n, 3))
    chair = kinds == "위원장"
    result[chair] = np.where(draw[chair, 0] < 0.97, "원안가결", "부결")
    gov_pass = (kinds == "정부") & (result == "임기만료폐기") & (draw[:, 0] < 0.4)
    result[gov_pass] = "원안가결"
    closed = result != ""
    passed = np.isin(result, _PASSED)
    voted = passed | (result == "부결")
    proc = np.where(closed, np.minimum(day + rng.integers(20, 500, n), span), -1)
    cmt_proc = np.where(closed & ~np.isin(result, ("철회", "임기만료폐기")), proc, -1)
    committee_dt = day + rng.integers(1, 8, n)
    law = np.where(passed, np.maximum(proc - rng.integers(3, 15, n), day), -1)
    topics = rng.integers(0, len(LAW_TOPICS), n)
    cmit = rng.integers(0, len(committees), n)
    ids = _bill_ids(rng, n)
    picks = rng.integers(0, len(seated), (n, 24))
    sizes = rng.integers(10, 16, n)
    names, who, proposer = [], [], []
    for i in range(n):
        topic, kind = LAW_TOPICS[topics[i]], kinds[i]
        if kind == "위원장":
            names.append(_bill_name(topic, "일부개정법률안(대안)"))
        elif draw[i, 1] < 0.86 or topic.endswith("관한"):
            names.append(_bill_name(topic, "일부개정법률안" if draw[i, 1] < 0.98 else "전부개정법률안"))
        else:
            names.append(nfc(f"{topic} 지원에 관한 법률안"))  # a new law (제정법률안)
        if kind == "의원":
            team = [seated[j] for j in dict.fromkeys(picks[i].tolist())][: sizes[i]]
            who.append(team)
            proposer.append(f"{team[0].name}의원 등 {len(team)}인")
        else:
            who.append([])
            proposer.append("정부" if kind == "정부" else f"{committees[cmit[i]][3]}위원장")
    links = [LIKMS + b for b in ids]
    cmt_names = [committees[c][3] for c in cmit.tolist()]
    block = {
        "BILL_ID": ids, "BILL_NO": [f"{age}{k + 1:05d}" for k in range(n)], "BILL_NAME": names,
        "COMMITTEE": cmt_names, "PROPOSE_DT": _iso(day, start), "PROC_RESULT": result.tolist(),
        "AGE": [str(age)] * n, "DETAIL_LINK": links, "PROPOSER": proposer,
        "MEMBER_LIST": [f"https://likms.assembly.go.kr/bill/coactorListPopup.do?billId={b}" if w else ""
                        for b, w in zip(ids, who, strict=True)],
        "LAW_PROC_DT": _iso(law, start), "LAW_PRESENT_DT": _iso(law, start),
        "LAW_SUBMIT_DT": _iso(np.where(law >= 0, law - 2, -1), start),
        "CMT_PROC_RESULT_CD": np.where(cmt_proc >= 0, result, "").tolist(),
        "CMT_PROC_DT": _iso(cmt_proc, start),
        "CMT_PRESENT_DT": _iso(np.where(cmt_proc >= 0, np.minimum(committee_dt + 30, cmt_proc), -1), start),
        "COMMITTEE_DT": _iso(committee_dt, start), "PROC_DT": _iso(proc, start),
        "COMMITTEE_ID": [committees[c][2] for c in cmit.tolist()],
        "PUBL_PROPOSER": [",".join(m.name for m in w[1:]) for w in who],
        "LAW_PROC_RESULT_CD": np.where(law >= 0, "원안가결", "").tolist(),
        "RST_PROPOSER": [w[0].name if w else "" for w in who],
        "RST_MONA_CD": [w[0].code if w else "" for w in who],
        "PUBL_MONA_CD": [",".join(m.code for m in w[1:]) for w in who],
        # Columns other services show under their own names.
        "ERACO": [f"제{age}대"] * n, "BILL_KIND": ["법률안"] * n, "PPSR_KIND": kinds.tolist(),
        "PPSL_SESS": [f"제{400 + (age - 20) * 15 + int(d) // 120}회" for d in day.tolist()],
        "RGS_CONF_RSLT": np.where(voted, result, "").tolist(), "RGS_RSLN_DT": _iso(np.where(voted, proc, -1), start),
        "PROM_DT": _iso(np.where(passed, proc + 20, -1), start),
        "ERACO_FILTER": [""] * n,
    }
    return block, who


def _proposers(bills: Bills, everyone: list[Member]) -> TableData:
    """BILLINFOPPSR 의안 제안자정보: one row per proposer of each member bill, 대표발의자 first."""
    c = bills.cols
    sizes = np.asarray([len(w) for w in bills.proposers], dtype=np.int64)
    rows = np.repeat(np.arange(len(sizes)), sizes)
    who = np.fromiter((m.idx for w in bills.proposers for m in w), dtype=np.int64, count=int(sizes.sum()))
    rank = np.arange(len(who)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    party_at = np.full((len(everyone), 23), "", dtype=object)
    for m in everyone:
        party_at[m.idx, m.ages] = m.parties

    def per_bill(col: str) -> np.ndarray:
        return np.asarray(c[col], dtype=object)[rows]

    def per_person(attr: str) -> list:
        return np.asarray([getattr(m, attr) for m in everyone], dtype=object)[who].tolist()

    ages = per_bill("AGE")
    cols = {
        "BILL_ID": per_bill("BILL_ID").tolist(), "BILL_NO": per_bill("BILL_NO").tolist(),
        "BILL_NM": per_bill("BILL_NAME").tolist(), "PPSL_DT": per_bill("PROPOSE_DT").tolist(),
        "PPSR_NM": per_person("name"), "PPSR_POLY_NM": party_at[who, ages.astype(np.int64)].tolist(),
        "PPSR_CH_NM": per_person("hanja"), "REP_DIV": np.where(rank == 0, "대표발의", "").tolist(),
        "PPSR_ROLE": ["발의자"] * len(who), "PPSR_KIND": ["의원"] * len(who),
        "PPSR_CN": (rank + 1).astype(str).tolist(), "NASS_CD": per_person("code"), "ERACO": ages.tolist(),
    }
    return TableData("assembly_bill_proposer", cols, entities=_entities(cols))


def _vote_tallies(ctx: WorldContext, bills: Bills) -> tuple[TableData, np.ndarray]:
    """ncocpgfiaoituanbr 의안별 표결현황: bills put to a recorded plenary vote (passed or rejected).

    Returns the table and the per-bill [찬성, 반대, 기권, 불참] counts the member rows are dealt from;
    a few published YES_TCNT values are then nudged off those counts, as the real portal's sometimes are.
    """
    c = bills.cols
    rng = ctx.rng("assembly", "tallies")
    pick = [i for i, r in enumerate(c["RGS_CONF_RSLT"]) if r]
    rejected = np.asarray([c["PROC_RESULT"][i] == "부결" for i in pick])
    seated = 300 - rng.integers(0, 3, len(pick))
    counts = np.stack([rng.multinomial(s, (0.3, 0.42, 0.1, 0.18) if r else (0.8, 0.03, 0.03, 0.14))
                       for s, r in zip(seated.tolist(), rejected.tolist(), strict=True)])
    drift = np.where(rng.random(len(pick)) < 0.03, rng.choice([-2, -1, 1, 2], len(pick)), 0)

    def col(name: str) -> list:
        return [c[name][i] for i in pick]

    cols = {
        "BILL_ID": col("BILL_ID"), "BILL_NO": col("BILL_NO"), "BILL_NAME": col("BILL_NAME"), "AGE": col("AGE"),
        "PROC_DT": col("PROC_DT"), "PROC_RESULT_CD": col("PROC_RESULT"), "BILL_KIND_CD": col("BILL_KIND"),
        "CURR_COMMITTEE": col("COMMITTEE"), "CURR_COMMITTEE_ID": col("COMMITTEE_ID"),
        "MEMBER_TCNT": seated.tolist(), "VOTE_TCNT": counts[:, :3].sum(axis=1).tolist(),
        "YES_TCNT": (counts[:, 0] + drift).tolist(), "NO_TCNT": counts[:, 1].tolist(),
        "BLANK_TCNT": counts[:, 2].tolist(), "LINK_URL": col("DETAIL_LINK"), "PROPOSER": col("PROPOSER"),
        "PROPOSE_DT": col("PROPOSE_DT"),
    }
    return TableData("assembly_vote_tally", cols, entities=_entities(cols)), counts


def _votes(ctx: WorldContext, current: list[Member], tally: TableData, counts: np.ndarray) -> TableData:
    """nojepdqqaweusdfbi 국회의원 본회의 표결정보: ~299 rows per 22대 voted bill.

    Each bill's 찬성/반대/기권/불참 counts are dealt to members by a noisy party lean, so members of a
    party tend to vote alike; the seat order (MEMBER_NO) is the row order, as on the portal.
    """
    t = tally.columns
    sel = np.asarray([i for i, a in enumerate(t["AGE"]) if a == "22"], dtype=np.int64)
    members = sorted(current, key=lambda m: m.seat)
    rng = ctx.rng("assembly", "votes")
    lean = np.asarray([m.party_lean for m in members])
    labels = np.asarray(["반대", "기권", "불참", "찬성"], dtype=object)
    bill_rows, member_rows, modes = [], [], []
    for b in sel.tolist():
        seated = int(t["MEMBER_TCNT"][b])
        score = lean * rng.uniform(0.5, 1.5) + rng.normal(0, 0.6, len(members))
        ranked = np.argsort(-score, kind="stable")[:seated]  # most contrarian first
        mode = np.repeat(np.arange(4), [counts[b, 1], counts[b, 2], counts[b, 3], counts[b, 0]])
        order = np.argsort(ranked, kind="stable")
        member_rows.append(ranked[order])
        modes.append(mode[order])
        bill_rows.append(np.full(seated, b))
    bill_idx = np.concatenate(bill_rows) if bill_rows else np.empty(0, dtype=np.int64)
    mem_idx = np.concatenate(member_rows) if member_rows else np.empty(0, dtype=np.int64)

    def per_bill(values: Sequence[Any] | np.ndarray) -> list:
        return np.asarray(values, dtype=object)[bill_idx].tolist()

    def per_member(values: Sequence[Any] | np.ndarray) -> list:
        return np.asarray(values, dtype=object)[mem_idx].tolist()

    proc = t["PROC_DT"]
    clock = rng.integers(0, 3 * 3600, len(t["BILL_ID"]))  # every member's vote on a bill carries one time
    vote_date = [f"{d.replace('-', '')} {14 + s // 3600:02d}{s // 60 % 60:02d}{s % 60:02d}"
                 for d, s in zip(proc, clock.tolist(), strict=True)]
    urls = [LIKMS + b for b in t["BILL_ID"]]
    cols = {
        "HG_NM": per_member([m.name for m in members]), "HJ_NM": per_member([m.hanja for m in members]),
        "POLY_NM": per_member([m.party for m in members]), "ORIG_NM": per_member([m.district for m in members]),
        "MEMBER_NO": per_member([str(m.seat) for m in members]), "POLY_CD": per_member([m.party_cd for m in members]),
        "ORIG_CD": per_member([m.district_cd for m in members]), "VOTE_DATE": per_bill(vote_date),
        "BILL_NO": per_bill(t["BILL_NO"]), "BILL_NAME": per_bill(t["BILL_NAME"]), "BILL_ID": per_bill(t["BILL_ID"]),
        "LAW_TITLE": per_bill(t["BILL_NAME"]), "CURR_COMMITTEE": per_bill(t["CURR_COMMITTEE"]),
        "RESULT_VOTE_MOD": labels[np.concatenate(modes)].tolist() if modes else [],
        "DEPT_CD": per_member([m.committees[0][0] for m in members]),
        "CURR_COMMITTEE_ID": per_bill(t["CURR_COMMITTEE_ID"]), "DISP_ORDER": per_member([str(m.seat) for m in members]),
        "BILL_URL": per_bill(urls), "BILL_NAME_URL": per_bill(urls),
        "SESSION_CD": per_bill([str(415 + int(d[:4]) * 12 % 7 + int(d[5:7])) for d in proc]),
        "CURRENTS_CD": per_bill([str(1 + int(d[8:10]) % 15) for d in proc]),
        "AGE": per_bill(t["AGE"]), "MONA_CD": per_member([m.code for m in members]),
    }
    return TableData("assembly_vote", cols, entities=_entities(cols))


def _plenary_schedule(ctx: WorldContext) -> TableData:
    """nekcaiymatialqlxr 본회의 일정: 22대 plenary sittings (about 100 so far), newest first."""
    rng = ctx.rng("assembly", "plenary")
    rows = []
    day = AGE_START[22] + dt.timedelta(days=6)
    session, cha = 415, 1
    while day < ctx.today:
        if day.weekday() in (1, 3) and rng.random() < 0.6:
            rows.append({"MEETINGSESSION": f"제{session}회", "CHA": f"제{cha}차", "TITLE":
                         f"제{session}회 국회(정기회) 제{cha}차 본회의" if day.month in (9, 10, 11, 12)
                         else f"제{session}회 국회(임시회) 제{cha}차 본회의",
                         "MEETTING_DATE": day.isoformat(), "MEETTING_TIME": "14:00",
                         "LINK_URL": f"https://www.assembly.go.kr/portal/cnts/cntsCont/dataA.do?cntsDivCd=PLNRY&"
                                     f"dt={yyyymmdd(day)}", "UNIT_CD": "100022", "UNIT_NM": "제22대"})
            cha += 1
        if day.day == 1:
            session, cha = session + 1, 1
        day += dt.timedelta(days=1)
    rows.reverse()
    return _table("assembly_plenary_schedule", rows)


# --- endpoints -------------------------------------------------------------------------------------

_PORTAL = {"require_user_agent": True, "invalid_keys": ("sample",), "key_id": "assembly"}


def _ep(code: str, table: str, binds: dict[str, Bind], *, required: tuple[str, ...] = (),
        fields: tuple[str, ...] | None = None, columns: dict[str, str] | None = None,
        fixed: tuple[Cond, ...] = (), numeric: tuple[str, ...] = ()) -> Endpoint:
    opts = dict(_PORTAL)
    if numeric:
        opts["numeric_fields"] = numeric
    return Endpoint("portal", HOST, code, table, binds=binds, required=required, fields=fields, columns=columns,
                    fixed=fixed, max_page_size=1000, options=opts)


_BILL_FIELDS = ("BILL_ID", "BILL_NO", "BILL_NAME", "COMMITTEE", "PROPOSE_DT", "PROC_RESULT", "AGE", "DETAIL_LINK",
                "PROPOSER", "MEMBER_LIST", "LAW_PROC_DT", "LAW_PRESENT_DT", "LAW_SUBMIT_DT", "CMT_PROC_RESULT_CD",
                "CMT_PROC_DT", "CMT_PRESENT_DT", "COMMITTEE_DT", "PROC_DT", "COMMITTEE_ID", "PUBL_PROPOSER",
                "LAW_PROC_RESULT_CD", "RST_PROPOSER", "RST_MONA_CD", "PUBL_MONA_CD")
_TALLY_FIELDS = ("BILL_ID", "BILL_NO", "BILL_NAME", "AGE", "PROC_DT", "PROC_RESULT_CD", "BILL_KIND_CD",
                 "CURR_COMMITTEE", "CURR_COMMITTEE_ID", "MEMBER_TCNT", "VOTE_TCNT", "YES_TCNT", "NO_TCNT",
                 "BLANK_TCNT", "LINK_URL")
_COUNTS = ("MEMBER_TCNT", "VOTE_TCNT", "YES_TCNT", "NO_TCNT", "BLANK_TCNT")

ENDPOINTS = [
    # Name filters are exact and code filters are exact; BILL_NAME / PROPOSER match a part of the
    # text as the portal's search boxes do (unconfirmed for the OpenAPI, plausible).
    _ep("nwvrqwxyaytdsfvhu", "assembly_member",
        {"HG_NM": Bind("HG_NM"), "POLY_NM": Bind("POLY_NM"), "ORIG_NM": Bind("ORIG_NM", "contains"),
         "MONA_CD": Bind("MONA_CD", pattern=MONA_CD)}),
    _ep("ALLNAMEMBER", "assembly_allmember",
        {"NAAS_CD": Bind("NAAS_CD", pattern=MONA_CD), "NAAS_NM": Bind("NAAS_NM"),
         "PLPT_NM": Bind("PLPT_NM", "contains"), "BLNG_CMIT_NM": Bind("BLNG_CMIT_NM", "contains"),
         "GTELT_ERACO": Bind("GTELT_ERACO", "contains")}),
    _ep("nexgtxtmaamffofof", "assembly_member_career",
        {"HG_NM": Bind("HG_NM"), "MONA_CD": Bind("MONA_CD", pattern=MONA_CD)}),
    _ep("negnlnyvatsjwocar", "assembly_member_sns",
        {"HG_NM": Bind("HG_NM"), "MONA_CD": Bind("MONA_CD", pattern=MONA_CD)}),
    _ep("nxrvzonlafugpqjuh", "assembly_committee",
        {"CMT_DIV_NM": Bind("CMT_DIV_NM", "contains"), "HR_DEPT_CD": Bind("HR_DEPT_CD", pattern=r"\d{7}"),
         "COMMITTEE_NAME": Bind("COMMITTEE_NAME", "contains"), "HG_NM": Bind("HG_NM")},
        numeric=("LIMIT_CNT", "CURR_CNT", "POLY99_CNT", "POLY_CNT")),
    _ep("nktulghcadyhmiqxi", "assembly_committee_member",
        {"DEPT_CD": Bind("DEPT_CD", pattern=r"\d{7}"), "DEPT_NM": Bind("DEPT_NM", "contains"),
         "HG_NM": Bind("HG_NM"), "POLY_NM": Bind("POLY_NM"), "MONA_CD": Bind("MONA_CD", pattern=MONA_CD)}),
    _ep("nzmimeepazxkubdpn", "assembly_bill",
        {"AGE": Bind("AGE", pattern=AGE), "BILL_ID": Bind("BILL_ID", pattern=BILL_ID),
         "BILL_NO": Bind("BILL_NO", pattern=BILL_NO), "BILL_NAME": Bind("BILL_NAME", "contains"),
         "PROPOSER": Bind("PROPOSER", "contains"), "COMMITTEE": Bind("COMMITTEE", "contains"),
         "PROC_RESULT": Bind("PROC_RESULT"), "RST_MONA_CD": Bind("RST_MONA_CD", pattern=MONA_CD)},
        required=("AGE",), fields=_BILL_FIELDS, fixed=(Cond("PPSR_KIND", "eq", "의원"),)),
    _ep("ncocpgfiaoituanbr", "assembly_vote_tally",
        {"AGE": Bind("AGE", pattern=AGE), "BILL_ID": Bind("BILL_ID", pattern=BILL_ID),
         "BILL_NO": Bind("BILL_NO", pattern=BILL_NO), "BILL_NAME": Bind("BILL_NAME", "contains"),
         "PROC_RESULT_CD": Bind("PROC_RESULT_CD"), "CURR_COMMITTEE": Bind("CURR_COMMITTEE", "contains")},
        required=("AGE",), fields=_TALLY_FIELDS, numeric=_COUNTS),
    _ep("nojepdqqaweusdfbi", "assembly_vote",
        {"AGE": Bind("AGE", pattern=AGE), "BILL_ID": Bind("BILL_ID", pattern=BILL_ID),
         "HG_NM": Bind("HG_NM"), "POLY_NM": Bind("POLY_NM"), "MEMBER_NO": Bind("MEMBER_NO", pattern=r"\d{1,3}"),
         "MONA_CD": Bind("MONA_CD", pattern=MONA_CD), "RESULT_VOTE_MOD": Bind("RESULT_VOTE_MOD"),
         "BILL_NO": Bind("BILL_NO", pattern=BILL_NO)},
        required=("AGE", "BILL_ID")),
    # BILLRCP: an ERACO filter answers INFO-200 for every value on the live portal (observed), so it
    # binds to a column no value matches.
    _ep("BILLRCP", "assembly_bill",
        {"BILL_NO": Bind("BILL_NO", pattern=BILL_NO), "BILL_NM": Bind("BILL_NAME", "contains"),
         "BILL_KIND": Bind("BILL_KIND"), "PPSR_KIND": Bind("PPSR_KIND"), "PROC_RSLT": Bind("PROC_RESULT"),
         "ERACO": Bind("ERACO_FILTER")},
        columns={"BILL_ID": "BILL_ID", "BILL_NO": "BILL_NO", "ERACO": "ERACO", "BILL_KIND": "BILL_KIND",
                 "BILL_NM": "BILL_NAME", "PPSR_KIND": "PPSR_KIND", "PPSL_DT": "PROPOSE_DT",
                 "PROC_RSLT": "PROC_RESULT", "LINK_URL": "DETAIL_LINK"}),
    _ep("TVBPMBILL11", "assembly_bill",
        {"BILL_ID": Bind("BILL_ID", pattern=BILL_ID), "BILL_NO": Bind("BILL_NO", pattern=BILL_NO),
         "AGE": Bind("AGE", pattern=AGE), "BILL_NAME": Bind("BILL_NAME", "contains"),
         "PROPOSER": Bind("PROPOSER", "contains"), "PROPOSER_KIND": Bind("PPSR_KIND"),
         "CURR_COMMITTEE": Bind("COMMITTEE", "contains"), "PROC_RESULT_CD": Bind("PROC_RESULT")},
        columns={"BILL_ID": "BILL_ID", "BILL_NO": "BILL_NO", "AGE": "AGE", "BILL_NAME": "BILL_NAME",
                 "PROPOSER": "PROPOSER", "PROPOSER_KIND": "PPSR_KIND", "PROPOSE_DT": "PROPOSE_DT",
                 "CURR_COMMITTEE_ID": "COMMITTEE_ID", "CURR_COMMITTEE": "COMMITTEE", "COMMITTEE_DT": "COMMITTEE_DT",
                 "PROC_RESULT_CD": "PROC_RESULT", "PROC_DT": "PROC_DT", "LINK_URL": "DETAIL_LINK"}),
    _ep("BILLINFODETAIL", "assembly_bill", {"BILL_ID": Bind("BILL_ID", pattern=BILL_ID)}, required=("BILL_ID",),
        columns={"BILL_ID": "BILL_ID", "BILL_NO": "BILL_NO", "BILL_NM": "BILL_NAME", "PPSR_KIND": "PPSR_KIND",
                 "PPSR": "PROPOSER", "PPSL_DT": "PROPOSE_DT", "PPSL_SESS": "PPSL_SESS", "JRCMIT_NM": "COMMITTEE",
                 "JRCMIT_CMMT_DT": "COMMITTEE_DT", "JRCMIT_PRSNT_DT": "CMT_PRESENT_DT",
                 "JRCMIT_PROC_DT": "CMT_PROC_DT", "JRCMIT_PROC_RSLT": "CMT_PROC_RESULT_CD",
                 "LAW_CMMT_DT": "LAW_SUBMIT_DT", "LAW_PRSNT_DT": "LAW_PRESENT_DT", "LAW_PROC_DT": "LAW_PROC_DT",
                 "LAW_PROC_RSLT": "LAW_PROC_RESULT_CD", "RGS_RSLN_DT": "RGS_RSLN_DT",
                 "RGS_CONF_RSLT": "RGS_CONF_RSLT", "PROM_DT": "PROM_DT"}),
    _ep("BILLINFOPPSR", "assembly_bill_proposer", {"BILL_ID": Bind("BILL_ID", pattern=BILL_ID)},
        required=("BILL_ID",)),
    # 본회의 처리안건_법률안: the bills the plenary voted on, with their tallies.
    _ep("nwbpacrgavhjryiph", "assembly_vote_tally",
        {"AGE": Bind("AGE", pattern=AGE), "BILL_ID": Bind("BILL_ID", pattern=BILL_ID),
         "BILL_NO": Bind("BILL_NO", pattern=BILL_NO), "BILL_NM": Bind("BILL_NAME", "contains"),
         "PROC_RESULT_CD": Bind("PROC_RESULT_CD")},
        required=("AGE",), numeric=("VOTE_TCNT", "YES_TCNT", "NO_TCNT", "BLANK_TCNT"),
        columns={"BILL_ID": "BILL_ID", "BILL_NO": "BILL_NO", "BILL_NM": "BILL_NAME", "BILL_KIND": "BILL_KIND_CD",
                 "AGE": "AGE", "PROPOSER": "PROPOSER", "COMMITTEE_NM": "CURR_COMMITTEE",
                 "PROC_RESULT_CD": "PROC_RESULT_CD", "VOTE_TCNT": "VOTE_TCNT", "YES_TCNT": "YES_TCNT",
                 "NO_TCNT": "NO_TCNT", "BLANK_TCNT": "BLANK_TCNT", "PROPOSE_DT": "PROPOSE_DT",
                 "RGS_PROC_DT": "PROC_DT", "CURR_COMMITTEE_ID": "CURR_COMMITTEE_ID", "LINK_URL": "LINK_URL"}),
    _ep("nekcaiymatialqlxr", "assembly_plenary_schedule",
        {"UNIT_CD": Bind("UNIT_CD", pattern=r"1000\d{2}"), "MEETINGSESSION": Bind("MEETINGSESSION"),
         "CHA": Bind("CHA"), "MEETTING_DATE": Bind("MEETTING_DATE", pattern=r"\d{4}-\d{2}-\d{2}")},
        required=("UNIT_CD",)),
]
