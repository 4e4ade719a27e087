"""HRD-Net / 고용24 훈련과정 (family G): 훈련기관, 과정, 회차 and 출결 of the world.

One row per 과정 회차 (trprId + trprDegr) holds every field the 목록, 상세 and 일정 endpoints show;
the endpoints pick and rename columns. 훈련기관 sit in real 시도/시군구 (regions.py); 과정명 come from
NCS 세분류 the way HRD-Net titles read. Hidden columns: `stdt` (훈련시작일 as YYYYMMDD, what the
srchTraStDt/srchTraEndDt window compares), `area1`/`area2` (시도/시군구 code of the 기관).
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.floats import sequential_sum
from sim.world.names import COMPANY_HEADS, GIVEN, PLACE_STEMS, SURNAMES, person_names
from sim.world.regions import SIDO_BY_CODE, SIDOS, sigungu_of
from sim.world.table import TableData

LEGACY = "www.hrd.go.kr"
WORK24 = "www.work24.go.kr"
LEGACY_PATH = "/jsp/HRDP/HRDPO00/HRDPOA60/HRDPOA60_{n}.jsp"
WORK24_PATH = "/cm/openApi/call/hr/callOpenApiSvcInfo310L0{n}.do"  # L02/L03 ids are unconfirmed
TRPR_ID = r"AIG\d{14}"
TRPR_DEGR = r"\d{1,3}"
TORG_ID = r"\d{12}"

# NCS 대분류 2 digits + 중 + 소 + 세분류 = 8 digits; (ncsCd, 세분류명, 과정명 stems).
_NCS = [
    ("20010202", "응용SW엔지니어링", ["자바 풀스택 개발자 양성", "스프링 기반 웹개발자 양성", "파이썬 백엔드 개발"]),
    ("20010201", "SW아키텍처", ["클라우드 네이티브 MSA 개발", "AWS 클라우드 아키텍트 양성"]),
    ("20010105", "빅데이터분석", ["빅데이터 분석 전문가 양성", "AI 데이터 분석가 양성", "파이썬 데이터분석"]),
    ("20010206", "보안엔지니어링", ["정보보안 전문가 양성", "화이트해커 양성", "클라우드 보안 엔지니어"]),
    ("20010207", "UI/UX엔지니어링", ["UI/UX 디자인 & 웹퍼블리싱", "프론트엔드(React) 개발자 양성"]),
    ("20010203", "임베디드SW엔지니어링", ["IoT 임베디드 SW 개발자", "자율주행 임베디드 시스템"]),
    ("08020103", "디지털디자인", ["웹디자인(웹퍼블리셔) 양성", "컴퓨터그래픽스운용기능사 취득", "GTQ 포토샵·일러스트"]),
    ("08020102", "시각디자인", ["편집디자인 실무", "브랜드 디자인 실무"]),
    ("08030203", "영상제작", ["유튜브 영상편집 크리에이터", "프리미어·애프터이펙트 영상편집"]),
    ("13010102", "한식조리", ["한식조리기능사 취득", "한식조리 실무"]),
    ("13010103", "양식조리", ["양식조리기능사 취득", "브런치 카페 조리 실무"]),
    ("13010202", "바리스타", ["바리스타 2급 자격증 취득", "카페 창업 바리스타 실무"]),
    ("13010110", "제과제빵", ["제과·제빵기능사 취득", "베이커리 창업 실무"]),
    ("12010101", "헤어미용", ["미용사(일반) 국가자격증 취득", "헤어 커트·펌 실무"]),
    ("12010102", "피부미용", ["미용사(피부) 국가자격증 취득", "에스테틱 피부관리 실무"]),
    ("12010104", "네일미용", ["미용사(네일) 국가자격증 취득", "젤네일 아트 실무"]),
    ("02030201", "회계·감사", ["전산회계 1급 취득", "ERP 회계실무(더존 Smart A)"]),
    ("02030202", "세무", ["전산세무 2급 취득", "기업 세무회계 실무"]),
    ("02020302", "사무행정", ["컴퓨터활용능력 1급 취득", "OA 사무행정 실무"]),
    ("15010102", "기계설계", ["CAD/CAM 기계설계 실무", "CATIA 3D 모델링"]),
    ("15020102", "절삭가공", ["CNC 선반·밀링 가공", "컴퓨터응용선반기능사 취득"]),
    ("15060103", "자동차정비", ["자동차정비기능사 취득", "전기차 정비 실무"]),
    ("14010201", "건축설계", ["건축CAD 실무", "BIM 건축설계 실무"]),
    ("14040101", "실내건축", ["실내건축 인테리어 실무", "실내건축기능사 취득"]),
    ("19010401", "내선공사", ["전기기능사 취득", "전기공사 현장실무"]),
    ("06020101", "병원행정", ["병원코디네이터 양성", "의료보험청구 실무"]),
    ("10030201", "e-비즈니스", ["온라인 쇼핑몰 창업 및 마케팅", "SNS 디지털마케팅 실무"]),
    ("23020101", "산업안전관리", ["산업안전기사 취득", "건설안전 실무"]),
    ("16030101", "용접", ["특수용접기능사 취득", "CO2·TIG 용접 실무"]),
]
# 훈련유형 (crseTracseSe / trainTargetCd) codes as HRD-Net shows them.
_TARGETS = {
    "C0061": "국민내일배움카드(일반)",
    "C0054": "국가기간전략산업직종",
    "C0104": "K-디지털 트레이닝",
    "C0102": "산업구조변화대응",
    "C0055": "과정평가형훈련",
}
_SUFFIXES = [" 과정", " 양성과정", " 실무과정", "(주말반)", "(야간반)", ""]
_ORG_KINDS = ["컴퓨터아카데미", "직업전문학교", "IT아카데미", "요리학원", "미용학원", "디자인학원", "기술교육원",
              "평생교육원", "직업능력개발원"]
# NCS 대분류 a kind of 기관 teaches; kinds not listed teach any field.
_KIND_FIELDS = {"컴퓨터아카데미": ("20", "08", "02"), "IT아카데미": ("20", "08"), "요리학원": ("13",),
                "미용학원": ("12",), "디자인학원": ("08", "14")}
_AREA_CODE = {"11": "02", "26": "051", "27": "053", "28": "032", "29": "062", "30": "042", "31": "052",
              "36": "044", "41": "031", "51": "033", "43": "043", "44": "041", "52": "063", "46": "061",
              "47": "054", "48": "055", "50": "064"}
# First two digits of the 5-digit 우편번호 per 시도.
_ZIP = {"11": (1, 8), "26": (46, 49), "27": (41, 43), "28": (21, 23), "29": (61, 62), "30": (34, 35),
        "31": (44, 45), "36": (30, 30), "41": (10, 18), "51": (24, 26), "43": (27, 29), "44": (31, 33),
        "52": (54, 56), "46": (57, 60), "47": (36, 40), "48": (50, 53), "50": (63, 63)}
# Where 훈련기관 are: most in 서울/경기, the rest spread.
_SIDO_WEIGHT = {"11": 0.32, "41": 0.24, "26": 0.07, "28": 0.06, "27": 0.05}


def _dash(day: dt.date) -> str:
    """List rows carry 훈련시작일/종료일 as YYYY-MM-DD (observed in clients; unconfirmed officially)."""
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d}"


def _weekday(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def _distinct(rng: np.random.Generator, n: int, high: int) -> list[int]:
    """n distinct integers below high, in draw order (ids that must not collide)."""
    out: dict[int, None] = {}
    while len(out) < n:
        for v in rng.integers(0, high, n).tolist():
            out.setdefault(v)
    return list(out)[:n]


def _orgs(ctx: WorldContext) -> list[dict]:
    rng = ctx.rng("hrd", "orgs")
    n = ctx.n(40, 900)
    codes = [s.code for s in SIDOS]
    rest = (1.0 - sequential_sum(_SIDO_WEIGHT.values())) / (len(codes) - len(_SIDO_WEIGHT))
    weights = np.array([_SIDO_WEIGHT.get(c, rest) for c in codes])
    sidos = rng.choice(codes, size=n, p=weights / weights.sum())
    ids = _distinct(rng, n, 10**8)
    managers = person_names(ctx.rng("hrd", "org-managers"), n)
    seen: set[str] = set()
    orgs = []
    for i in range(n):
        sido = SIDO_BY_CODE[str(sidos[i])]
        sgg = sigungu_of(sido.code)[int(rng.integers(0, len(sigungu_of(sido.code))))]
        kind = _ORG_KINDS[int(rng.integers(0, len(_ORG_KINDS)))]
        name = f"{COMPANY_HEADS[int(rng.integers(0, len(COMPANY_HEADS)))]}{kind}"
        if rng.random() < 0.2:
            name = f"(주){name}"
        if name in seen:
            name = f"{name} {sgg.name.split()[0]}캠퍼스" if kind.endswith("원") else f"{name} {sgg.name.split()[0]}점"
        if name in seen:
            name = f"{name} {i + 1}관"
        seen.add(name)
        torg = f"5000{int(ids[i]):08d}"
        area = _AREA_CODE[sido.code]
        tel = f"{area}-{int(rng.integers(200, 990))}-{int(rng.integers(1000, 10000))}"
        lo, hi = _ZIP[sido.code]
        road = PLACE_STEMS[int(rng.integers(0, len(PLACE_STEMS)))]
        # Course fields a 기관 teaches: a specialty by its kind, plus one or two others.
        allowed = [i for i, (code, _, _) in enumerate(_NCS) if code[:2] in _KIND_FIELDS.get(kind, code[:2])]
        fields = rng.choice(allowed, size=min(len(allowed), int(rng.integers(1, 4))), replace=False).tolist()
        orgs.append({
            "id": torg, "name": name, "sido": sido.code, "sgg": sgg.code,
            "addr1": f"{sido.name} {sgg.name} {road}로 {int(rng.integers(1, 400))}",
            "addr2": f"{int(rng.integers(2, 12))}층", "zip": f"{int(rng.integers(lo, hi + 1)):02d}{int(rng.integers(0, 1000)):03d}",
            "tel": tel, "grade": ["", "A", "B", "C"][int(rng.integers(0, 4))], "fields": fields,
            "manager": managers[i], "email": f"train{torg[-5:]}@{['naver.com', 'gmail.com', 'daum.net'][i % 3]}",
            "hp": f"www.edu{torg[-6:]}.co.kr",
        })
    return orgs


def _target_for(rng: np.random.Generator, ncs: str) -> str:
    if ncs.startswith("20"):
        return str(rng.choice(["C0104", "C0061", "C0054"], p=[0.4, 0.5, 0.1]))
    return str(rng.choice(["C0061", "C0054", "C0102", "C0055"], p=[0.7, 0.15, 0.1, 0.05]))


def _rounds(ctx: WorldContext, orgs: list[dict]) -> dict[str, list]:
    """Every 과정 회차: thousands of 과정 and tens of thousands of 회차 at full."""
    rng = ctx.rng("hrd", "courses")
    today = ctx.today
    serials = _distinct(rng, len(orgs) * 10, 10**10)
    rows: list[tuple] = []
    k = 0
    for org in orgs:
        for _ in range(int(rng.integers(1, 10))):
            ncs_i = org["fields"][int(rng.integers(0, len(org["fields"])))]
            ncs, ncs_nm, stems = _NCS[ncs_i]
            target = _target_for(rng, ncs)
            prefix = "(산대특)" if target == "C0102" else ""
            title = prefix + stems[int(rng.integers(0, len(stems)))] + _SUFFIXES[int(rng.integers(0, len(_SUFFIXES)))]
            year = int(rng.integers(2021, today.year + 1))
            trpr_id = f"AIG{year}{int(serials[k]):010d}"
            k += 1
            days = int(rng.integers(150, 200)) if target == "C0104" else int(rng.integers(25, 160))
            hours = int(rng.choice([4, 5, 6, 8]))
            yard = int(rng.choice([15, 18, 20, 20, 25, 30]))
            rate = int(rng.integers(700, 1500)) * 10  # 시간당 훈련비 (원)
            share = float(rng.uniform(0.15, 0.55))
            n_rounds = int(rng.integers(1, 11))
            gap = days + int(rng.integers(7, 60))
            last = today + dt.timedelta(days=int(rng.integers(-90, 150)))
            for r in range(n_rounds):
                start = _weekday(last - dt.timedelta(days=gap * (n_rounds - 1 - r)))
                end = _weekday(start + dt.timedelta(days=days))
                rows.append((org, trpr_id, str(r + 1), title, ncs, ncs_nm, target, start, end, days, hours, yard,
                             rate, share))
    rows.sort(key=lambda t: (t[7], t[1], int(t[2])))
    return _round_columns(ctx, rows)


def _round_columns(ctx: WorldContext, rows: list[tuple]) -> dict[str, list]:
    rng = ctx.rng("hrd", "rounds")
    today = ctx.today
    records: list[tuple] = []
    keys: list[str] = []

    def put(**values) -> None:
        if not keys:
            keys.extend(values)
        records.append(tuple(values.values()))

    draws = rng.random((len(rows), 4)).tolist()  # 신청률, 수료율, 3·6개월 취업률 — one block, drawn at once
    for (org, trpr_id, degr, title, ncs, ncs_nm, target, start, end, days, hours, yard, rate, share), u in zip(
            rows, draws, strict=True):
        tr_days = max(1, days * 5 // 7)
        total_hours = tr_days * hours
        real = total_hours * rate
        own = int(real * share) // 10 * 10
        reg = int(u[0] * (yard + 1)) if start > today else int(yard * (0.6 + 0.4 * u[0]))
        ended = end < today
        fini = int(reg * (0.7 + 0.25 * u[1])) if ended else 0
        since = (today - end).days
        r3 = c3 = r6 = c6 = ""
        if ended and fini and since >= 90:
            n3 = int(fini * (0.3 + 0.4 * u[2]))
            r3, c3 = f"{n3 / fini * 100:.1f}", str(n3)
            if since >= 180:
                n6 = min(fini, n3 + int((fini - n3) * 0.4 * u[3]))
                r6, c6 = f"{n6 / fini * 100:.1f}", str(n6)
        link = (f"https://www.hrd.go.kr/hrdp/co/pcobo/PCOBO0100P.do?tracseId={trpr_id}&tracseTme={degr}"
                f"&crseTracseSe={target}&trainstCstmrId={org['id']}")
        put(trprId=trpr_id, trprDegr=degr, title=title, subTitle=org["name"], address=org["addr1"],
            telNo=org["tel"], traStartDate=_dash(start), traEndDate=_dash(end), trainTarget=_TARGETS[target],
            trainTargetCd=target, yardMan=yard, regCourseMan=reg, courseMan=own, realMan=real, grade=org["grade"],
            ncsCd=ncs, eiEmplRate3=r3, eiEmplCnt3=c3, eiEmplRate6=r6, eiEmplCnt6=c6, titleLink=link,
            subTitleLink=f"https://www.hrd.go.kr/hrdp/ti/ptiao/PTIAO0100D.do?inoId={org['id']}",
            trainstCstId=org["id"], stdt=f"{start.year:04d}{start.month:02d}{start.day:02d}", area1=org["sido"],
            area2=org["sgg"], ncsNm=ncs_nm,
            addr1=org["addr1"], addr2=org["addr2"], zipCd=org["zip"], hpAddr=org["hp"], trprChap=org["manager"],
            trprChapTel=org["tel"], trprChapEmail=org["email"], trtm=total_hours, trDcnt=tr_days,
            perTrco=real - own, instPerTrco=real, totTrpCnt=reg, finiCnt=fini)
    return {key: list(values) for key, values in zip(keys, zip(*records, strict=True), strict=True)}


def _attendance(ctx: WorldContext, cols: dict[str, list]) -> TableData:
    """훈련생 출결 of 회차 in training or ended in the last 30 days (older 회차 answer no data — an
    assumption: the API serves 출결 to 기관 while a 과정 runs)."""
    today = ctx.today
    starts = np.array([dt.date.fromisoformat(s) for s in cols["traStartDate"]])
    ends = np.array([dt.date.fromisoformat(s) for s in cols["traEndDate"]])
    live = np.flatnonzero((starts <= today) & (ends >= today - dt.timedelta(days=30)))
    reg = np.asarray(cols["regCourseMan"])[live]
    rows = np.repeat(live, reg)
    n = len(rows)
    rng = ctx.rng("hrd", "attendance")
    elapsed = np.array([max(1, (min(today, ends[i]) - starts[i]).days * 5 // 7) for i in live])
    days = np.repeat(elapsed, reg)
    absent = rng.binomial(days, rng.uniform(0.0, 0.12, n))
    dropped = rng.random(n) < 0.06
    absent = np.where(dropped, np.maximum(absent, days // 2), absent)
    present = days - absent
    ended = np.repeat(np.array([ends[i] < today for i in live], dtype=bool), reg)
    status = np.where(dropped, "중도탈락", np.where(ended, np.where(absent * 5 > days, "미수료", "수료"), "훈련중"))
    sur = rng.integers(0, len(SURNAMES), n)
    giv = rng.integers(0, len(GIVEN), n)
    pick = [cols[c] for c in ("trprId", "trprDegr", "trainstCstId")]
    return TableData("hrd_attendance", {
        "trprId": [pick[0][i] for i in rows],
        "trprDegr": [pick[1][i] for i in rows],
        "trainstCstId": [pick[2][i] for i in rows],
        "trneeCstmrNm": [f"{SURNAMES[a]}*{GIVEN[b]}" for a, b in zip(sur, giv, strict=True)],
        "trneeSttusNm": status.tolist(),
        "atendDayCnt": present.astype(int).tolist(),
        "absentDayCnt": absent.astype(int).tolist(),
        "lateCnt": rng.poisson(0.8, n).astype(int).tolist(),
        "leaveEarlyCnt": rng.poisson(0.4, n).astype(int).tolist(),
        "atendRate": [f"{p / d * 100:.1f}" for p, d in zip(present.tolist(), days.tolist(), strict=True)],
    }, entities={"trprId": "trpr_id", "trprDegr": "trpr_degr", "trainstCstId": "torg_id"})


def tables(ctx: WorldContext) -> list[TableData]:
    cols = _rounds(ctx, _orgs(ctx))
    rounds = TableData("hrd_course_round", cols, entities={
        "trprId": "trpr_id", "trprDegr": "trpr_degr", "trainstCstId": "torg_id", "title": "course_name",
        "subTitle": "torg_name", "area1": "sido_code", "area2": "sigungu_code", "ncsCd": "ncs_code"})
    return [rounds, _attendance(ctx, cols)]


LIST_FIELDS = ("trprId", "trprDegr", "title", "subTitle", "address", "telNo", "traStartDate", "traEndDate",
               "trainTarget", "trainTargetCd", "yardMan", "regCourseMan", "courseMan", "realMan", "grade", "ncsCd",
               "eiEmplRate3", "eiEmplCnt3", "eiEmplRate6", "titleLink", "subTitleLink", "trainstCstId")
LIST_BINDS = {
    "srchTraStDt": Bind.any_date("stdt", "ge"),
    "srchTraEndDt": Bind.any_date("stdt", "le"),
    "srchTraArea1": Bind("area1", pattern=r"\d{2}"),
    "srchTraArea2": Bind("area2", pattern=r"\d{5}"),
    "srchNcs1": Bind("ncsCd", "prefix", r"\d{2}"),
    "srchNcs2": Bind("ncsCd", "prefix", r"\d{4}"),
    "srchNcs3": Bind("ncsCd", "prefix", r"\d{6}"),
    "crseTracseSe": Bind("trainTargetCd", pattern=r"C\d{4}"),
    "srchTraProcessNm": Bind("title", "contains"),
    "srchTraOrganNm": Bind("subTitle", "contains"),
}
LIST_OPTIONS = {
    "paged": True, "max_page_size": 100, "all_values": {"srchTraArea1": "00"}, "multi": ("crseTracseSe",),
    "sort_cols": {"TRNG_BGDE": "stdt", "TOT_FXNUM": "yardMan", "TR_STT_DT": "stdt"},
}
# 상세: the 과정/기관 기본정보 section (inst_base_info), wire name -> table column.
DETAIL_COLUMNS = {
    "trprId": "trprId", "trprDegr": "trprDegr", "trprNm": "title", "inoNm": "subTitle", "instIno": "trainstCstId",
    "addr1": "addr1", "addr2": "addr2", "zipCd": "zipCd", "hpAddr": "hpAddr", "trprChap": "trprChap",
    "trprChapTel": "trprChapTel", "trprChapEmail": "trprChapEmail", "ncsCd": "ncsCd", "ncsNm": "ncsNm",
    "trprTarget": "trainTargetCd", "trprTargetNm": "trainTarget", "trtm": "trtm", "trDcnt": "trDcnt",
    "perTrco": "perTrco", "instPerTrco": "instPerTrco",
}
SCHEDULE_COLUMNS = {
    "trprId": "trprId", "trprDegr": "trprDegr", "trprNm": "title", "instIno": "trainstCstId",
    "trStaDt": "traStartDate", "trEndDt": "traEndDate", "totFxnum": "yardMan", "totParMks": "regCourseMan",
    "totTrpCnt": "totTrpCnt", "finiCnt": "finiCnt", "totTrco": "realMan", "eiEmplRate3": "eiEmplRate3",
    "eiEmplCnt3": "eiEmplCnt3", "eiEmplRate6": "eiEmplRate6", "eiEmplCnt6": "eiEmplCnt6",
}
_ID_BINDS = {"srchTrprId": Bind("trprId", pattern=TRPR_ID), "srchTrprDegr": Bind("trprDegr", pattern=TRPR_DEGR)}
_TORG = {"srchTorgId": Bind("trainstCstId", pattern=TORG_ID)}


def _endpoints(host: str, path: str, wrapped: bool) -> list[Endpoint]:
    """목록/상세/일정 on one host. The legacy host wraps JSON in returnJSON; 고용24 answers it unwrapped."""
    base = {"wrapped": wrapped, "xml_encoding": "euc-kr" if host == LEGACY else "utf-8"}
    # Legacy 상세 takes srchTorgId as a section selector ("default" = 기본정보), not an id.
    detail_binds = _ID_BINDS if host == LEGACY else {**_ID_BINDS, **_TORG}
    return [
        Endpoint("hrd", host, path.format(n=1), "hrd_course_round", binds=LIST_BINDS,
                 required=("srchTraStDt", "srchTraEndDt"), fields=LIST_FIELDS, options={**base, **LIST_OPTIONS}),
        Endpoint("hrd", host, path.format(n=2), "hrd_course_round", binds=detail_binds,
                 required=("srchTrprId", "srchTrprDegr") + (() if host == LEGACY else ("srchTorgId",)),
                 columns=DETAIL_COLUMNS, options={**base, "section": "inst_base_info"}),
        Endpoint("hrd", host, path.format(n=3), "hrd_course_round", binds={**_ID_BINDS, **_TORG},
                 required=("srchTrprId",), columns=SCHEDULE_COLUMNS, options=base),
    ]


ENDPOINTS = [
    *_endpoints(LEGACY, LEGACY_PATH, wrapped=True),
    Endpoint("hrd", LEGACY, LEGACY_PATH.format(n=4), "hrd_attendance", binds={**_ID_BINDS, **_TORG},
             required=("srchTrprId", "srchTrprDegr", "srchTorgId"),
             fields=("trprId", "trprDegr", "trneeCstmrNm", "trneeSttusNm", "atendDayCnt", "absentDayCnt", "lateCnt",
                     "leaveEarlyCnt", "atendRate"),
             options={"wrapped": True, "xml_encoding": "euc-kr"}),
    *_endpoints(WORK24, WORK24_PATH, wrapped=False),
]
