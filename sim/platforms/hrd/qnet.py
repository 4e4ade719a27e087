"""Q-Net / 한국산업인력공단 국가자격 (data.go.kr family): 종목 목록, 종목별 자격정보, 시행일정, 수수료,
시험과목, and the B490007 qualExamSchd 시험일정.

Two hosts serve it: the older `openapi.q-net.or.kr/api/service/rest/{Service}/{op}` (XML unless `_type=json`
— the selector is unconfirmed) and `apis.data.go.kr/B490007/qualExamSchd/...` (`dataFormat=json|xml`,
numOfRows ≤ 50 else resultCode 930, as observed). The entity is the 4-digit 종목코드 `jmcd`/`jmCd`.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.table import Cond, TableData

QNET = "openapi.q-net.or.kr"
DATAGO = "apis.data.go.kr"
REST = "/api/service/rest"
JM_CD = r"\d{4}"

# 등급 letter -> (seriescd, seriesnm, name suffix). The seriescd numbering is unconfirmed.
SERIES = {
    "P": ("01", "기술사", "기술사"),
    "M": ("02", "기능장", "기능장"),
    "E": ("03", "기사", "기사"),
    "I": ("04", "산업기사", "산업기사"),
    "C": ("05", "기능사", "기능사"),
}

# (obligfldcd, obligfldnm, mdobligfldcd, mdobligfldnm, "stem:grades …"); a stem starting with "=" is the
# full 종목명 (서비스 종목 such as 미용사(일반) carry no grade suffix).
_FIELDS = [
    ("14", "건설", "141", "건축", "건축:EI 건축시공:P 건축구조:P 건축품질시험:P 건축기계설비:P 실내건축:EIC "
     "건축일반시공:MI 건축목공:IC 건축설비:EI 건축도장:C 거푸집:C 미장:C 방수:C 타일:C 조적:C 도배:C 유리시공:C "
     "온수온돌:C 비계:C 철근:C"),
    ("14", "건설", "142", "토목", "토목:EI 토목구조:P 토목시공:P 토질및기초:P 도로및공항:P 상하수도:P 수자원개발:P "
     "항만및해안:P 농어업토목:P 철도:P 철도토목:EIC 콘크리트:EI 건설재료시험:EIC 측량및지형공간정보:PEI 측량:C "
     "지적:PEIC 해양:PEI 교통:PEI 도시계획:PE"),
    ("14", "건설", "143", "조경", "조경:PEIC"),
    ("14", "건설", "144", "건설기계운전", "굴착기운전:C 지게차운전:C 기중기운전:C 천장크레인운전:C 로더운전:C "
     "불도저운전:C 롤러운전:C 타워크레인운전:C 건설기계설비:PEI 건설기계정비:MEIC"),
    ("15", "광업자원", "151", "광업자원", "광해방지:EI 자원관리:P 광산보안:EIC 시추:C"),
    ("16", "기계", "161", "기계제작", "기계:P 일반기계:E 기계설계:I 전산응용기계제도:C 컴퓨터응용가공:IC 기계가공:M "
     "정밀측정:IC 기계조립:IC 사출금형설계:E 프레스금형설계:E 사출금형:I 프레스금형:I 금형:C 산업기계설비:P "
     "설비보전:EC 생산자동화:IC 메카트로닉스:E"),
    ("16", "기계", "162", "기계장비설비·설치", "공조냉동기계:EIC 에너지관리:MEIC 배관:MIC 승강기:EIC 농업기계:EIC"),
    ("16", "기계", "163", "철도", "철도차량:PEIC 철도신호:PEIC 철도운송:I"),
    ("16", "기계", "164", "조선", "조선:PEI 선체건조:C"),
    ("16", "기계", "165", "항공", "항공:PEI 항공기체정비:C 항공기관정비:C 항공전기전자정비:C"),
    ("16", "기계", "166", "자동차", "자동차정비:MEIC 차량:P 자동차보수도장:C 자동차차체수리:C"),
    ("17", "재료", "171", "금속·재료", "금속가공:P 금속재료:PEIC 제선:MC 제강:MC 압연:MC 주조:IC 표면처리:PMIC "
     "열처리:C 용접:PMEIC 특수용접:C 판금제관:MIC"),
    ("18", "화학", "181", "화공", "화공:PEI 화학분석:EC 바이오화학제품제조:EI 화약류제조:EI 화약류관리:PEI"),
    ("19", "섬유·의복", "191", "섬유·의복", "의류:P 패션디자인:I 양복:C 양장:C 한복:MIC 섬유:PEI"),
    ("20", "전기·전자", "201", "전기", "발송배전:P 전기응용:P 건축전기설비:P 전기:MEIC 전기공사:EI 전기철도:PEI"),
    ("20", "전기·전자", "202", "전자", "전자응용:P 전자:EI 전자기기:MC 전자캐드:C 의공:EI 광학:EIC 반도체설계:EI "
     "임베디드:E 로봇기구개발:E"),
    ("21", "정보통신", "211", "정보기술", "정보처리:EIC 정보관리:P 컴퓨터시스템응용:P 전자계산기:EC 정보보안:EI "
     "빅데이터분석:E 사무자동화:I"),
    ("21", "정보통신", "212", "방송·무선", "무선설비:EIC 방송통신:EIC 전파전자통신:EIC"),
    ("21", "정보통신", "213", "통신", "정보통신:PEI 통신선로:IC 통신설비:M 통신기기:C"),
    ("22", "식품가공", "221", "식품", "식품:PEI 수산제조:PEI 식육처리:C"),
    ("13", "음식서비스", "131", "조리", "조리:M 한식조리:IC 양식조리:IC 중식조리:IC 일식조리:IC 복어조리:IC 제과:MC "
     "제빵:C 떡제조:C"),
    ("12", "이용·숙박·여행·오락·스포츠", "121", "이·미용", "=미용사(일반):C =미용사(피부):C =미용사(네일):C "
     "=미용사(메이크업):C =이용사:C =미용장:M =이용장:M"),
    ("23", "인쇄·목재·가구·공예", "231", "인쇄·사진", "인쇄:PIC 사진:C"),
    ("23", "인쇄·목재·가구·공예", "232", "목재·가구·공예", "가구제작:IC 목공예:C 도자기공예:C 귀금속가공:MIC "
     "보석디자인:I"),
    ("08", "문화·예술·디자인·방송", "083", "디자인", "시각디자인:EI 제품디자인:EI 컬러리스트:EI "
     "컴퓨터그래픽스운용:C 웹디자인개발:C"),
    ("08", "문화·예술·디자인·방송", "084", "방송", "영사:IC"),
    ("24", "농림어업", "241", "농업", "종자:PEIC 식물보호:EI 유기농업:EIC 시설원예:PEI 화훼장식:EIC 버섯종균:C"),
    ("24", "농림어업", "242", "축산", "축산:PEIC"),
    ("24", "농림어업", "243", "임업", "산림:PEIC 임업종묘:C"),
    ("24", "농림어업", "244", "어업", "수산양식:PEIC 어로:PEI"),
    ("25", "안전관리", "251", "안전관리", "건설안전:PEI 산업안전:PEI 소방:PEI 소방설비:EI 가스:PMEIC 인간공학:PE "
     "화공안전:P 기계안전:P 전기안전:P 산업위생관리:PEI 위험물:MIC"),
    ("25", "안전관리", "252", "비파괴검사", "비파괴검사:P 방사선비파괴검사:EIC 초음파비파괴검사:EIC "
     "자기비파괴검사:IC 침투비파괴검사:IC 누설비파괴검사:EI"),
    ("26", "환경·에너지", "261", "환경", "대기환경:EI 수질환경:EI 폐기물처리:EI 소음진동:EI 토양환경:PE "
     "자연생태복원:EI 대기관리:P 수질관리:P 환경:C 온실가스관리:EI"),
    ("26", "환경·에너지", "262", "에너지·기상", "신재생에너지발전설비(태양광):EIC 기상예보:E 기상감정:E 원자력발전:E "
     "방사선관리:P"),
]

# Real 종목코드 of well-known 종목 (observed), kept in every world so examples and tests can name them.
ANCHORS = {"정보처리기사": "1320", "정보처리산업기사": "2290", "전기기사": "1150", "한식조리기능사": "7910"}

# 국가전문자격 (qualgbcd S): no 등급 series; the seriescd they carry is unconfirmed, "00" here.
_PROFESSIONAL = [
    ("02", "경영·회계·사무", "021", "경영", "공인노무사 경영지도사 기술지도사 행정사 관세사"),
    ("25", "안전관리", "251", "안전관리", "산업안전지도사 산업보건지도사 소방안전교육사 경비지도사"),
    ("03", "금융·보험", "031", "금융·보험", "손해평가사 감정평가사"),
]

# 회차 per 등급 group per year: (group, qualgbCd, qualgbNm, rounds, first 원서접수 month, 회차 base for 2026).
_GROUPS = [
    ("P", "T", "국가기술자격", 3, 1, 138),
    ("M", "T", "국가기술자격", 2, 1, 79),
    ("EI", "T", "국가기술자격", 3, 1, 1),
    ("C", "T", "국가기술자격", 4, 1, 1),
    ("CP", "C", "과정평가형자격", 2, 3, 1),
    ("W", "W", "일학습병행자격", 2, 4, 1),
]
_GROUP_LABEL = {"P": "기술사", "M": "기능장", "EI": "기사, 산업기사", "C": "기능사", "CP": "과정평가형", "W": "일학습병행"}

# 필기/실기 응시수수료 by 등급 (원), as Q-Net's fee table shows them.
_FEES = {"P": (67800, 87100), "M": (34400, 69700), "E": (19400, 22600), "I": (19400, 20800), "C": (14500, 17200),
         "S": (40000, 0)}
_INFO_GB = ["개요", "수행직무", "진로 및 전망", "출제경향", "취득방법"]


def _catalogue() -> list[dict[str, str]]:
    """Every 종목 the generator knows, in a fixed order (before jm codes are drawn)."""
    out: list[dict[str, str]] = []
    for ocd, onm, mcd, mnm, spec in _FIELDS:
        for token in spec.split():
            stem, _, grades = token.partition(":")
            for g in grades:
                seriescd, seriesnm, suffix = SERIES[g]
                name = stem[1:] if stem.startswith("=") else stem + suffix
                out.append({"qualgbcd": "T", "qualgbnm": "국가기술자격", "seriescd": seriescd, "seriesnm": seriesnm,
                            "jmfldnm": name, "obligfldcd": ocd, "obligfldnm": onm, "mdobligfldcd": mcd,
                            "mdobligfldnm": mnm, "grade": g, "stem": stem.lstrip("=")})
    for ocd, onm, mcd, mnm, names in _PROFESSIONAL:
        for name in names.split():
            out.append({"qualgbcd": "S", "qualgbnm": "국가전문자격", "seriescd": "00", "seriesnm": "", "jmfldnm": name,
                        "obligfldcd": ocd, "obligfldnm": onm, "mdobligfldcd": mcd, "mdobligfldnm": mnm,
                        "grade": "S", "stem": name})
    return out


def _jm_list(ctx: WorldContext) -> list[dict[str, str]]:
    """The world's 종목: ~500 at full, ~90 at small (anchors always), ordered by jmcd as the list is."""
    every = _catalogue()
    rng = ctx.rng("qnet", "jm")
    keep = rng.permutation(len(every))[: ctx.n(90, len(every))]
    chosen = sorted(set(keep.tolist()) | {i for i, jm in enumerate(every) if jm["jmfldnm"] in ANCHORS})
    taken = set(ANCHORS.values())
    pool = [c for c in rng.permutation(np.arange(1000, 10000)).tolist() if str(c) not in taken]
    jms = []
    for k, i in enumerate(chosen):
        jm = dict(every[i])
        jm["jmcd"] = ANCHORS.get(jm["jmfldnm"], str(pool[k]))
        jms.append(jm)
    jms.sort(key=lambda j: j["jmcd"])
    return jms


def _group_of(grade: str) -> str:
    return "EI" if grade in ("E", "I") else grade


def _weekday(day: dt.date) -> dt.date:
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return day


def _rounds(ctx: WorldContext) -> list[dict[str, str]]:
    """시행 회차 per 등급 group for last year and this year, with their 접수/시험/발표 dates."""
    out = []
    for year in (ctx.today.year - 1, ctx.today.year):
        for group, qualgb, qualgbnm, n_rounds, month, base in _GROUPS:
            for k in range(n_rounds):
                seq = k + 1 if base == 1 else base + (year - 2026) * n_rounds + k
                start = _weekday(dt.date(year, month, 13) + dt.timedelta(days=int(k * 365 / n_rounds)))
                doc_exam = _weekday(start + dt.timedelta(days=26))
                doc_pass = _weekday(doc_exam + dt.timedelta(days=20))
                prac_reg = _weekday(doc_pass + dt.timedelta(days=4))
                prac_exam = _weekday(prac_reg + dt.timedelta(days=25))
                label = _GROUP_LABEL[group]
                out.append({
                    "implYy": str(year), "implSeq": str(seq), "qualgbCd": qualgb, "qualgbNm": qualgbnm,
                    "description": f"{qualgbnm} {label} ({year}년도 제{seq}회)",
                    "implplannm": f"{year}년 정기 {label} {seq}회",
                    "docRegStartDt": yyyymmdd(start), "docRegEndDt": yyyymmdd(start + dt.timedelta(days=3)),
                    "docExamStartDt": yyyymmdd(doc_exam), "docExamEndDt": yyyymmdd(doc_exam + dt.timedelta(days=14)),
                    "docPassDt": yyyymmdd(doc_pass),
                    "docSubmitStartDt": yyyymmdd(doc_pass), "docSubmitEndDt": yyyymmdd(doc_pass + dt.timedelta(days=9)),
                    "pracRegStartDt": yyyymmdd(prac_reg), "pracRegEndDt": yyyymmdd(prac_reg + dt.timedelta(days=3)),
                    "pracExamStartDt": yyyymmdd(prac_exam),
                    "pracExamEndDt": yyyymmdd(prac_exam + dt.timedelta(days=18)),
                    "pracPassDt": yyyymmdd(prac_exam + dt.timedelta(days=40)),
                    "pracPassEndDt": yyyymmdd(prac_exam + dt.timedelta(days=47)),
                    "grp": group, "thisYear": "Y" if year == ctx.today.year else "N",
                })
    return out


def _columns(rows: list[dict]) -> dict[str, list]:
    cols: dict[str, list] = {k: [] for k in rows[0]} if rows else {}
    for r in rows:
        for k, v in r.items():
            cols[k].append(v)
    return cols


def tables(ctx: WorldContext) -> list[TableData]:
    jms = _jm_list(ctx)
    rounds = _rounds(ctx)
    rng = ctx.rng("qnet", "round-jm")
    # Which 종목 sit each 회차: most 종목 every 회차 of their group, some skip the later ones.
    held: dict[int, list[str]] = {}
    for r_i, rnd in enumerate(rounds):
        members = [jm for jm in jms if _group_of(jm["grade"]) == rnd["grp"]]
        held[r_i] = [jm["jmcd"] for jm in members if jm["jmcd"] in ANCHORS.values() or rng.random() < 0.85]
    round_cols = _columns(rounds)
    round_cols["jmCds"] = ["|" + "|".join(held[i]) + "|" for i in range(len(rounds))]
    jm_keys = ("jmcd", "jmfldnm", "qualgbcd", "qualgbnm", "seriescd", "seriesnm", "obligfldcd", "obligfldnm",
               "mdobligfldcd", "mdobligfldnm")
    jm_table = TableData("qnet_jm", {k: [j[k] for j in jms] for k in jm_keys},
                         entities={"jmcd": "jm_cd", "jmfldnm": "jm_name"})
    return [
        jm_table,
        TableData("qnet_exam_round", round_cols, entities={"implYy": "year"}),
        _jm_schedule(ctx, jms, rounds, held),
        _jm_info(ctx, jms),
        _jm_fee(jms),
        _subjects(jms),
    ]


def _jm_fields(jm: dict[str, str]) -> dict[str, str]:
    return {"jmcd": jm["jmcd"], "jmfldnm": jm["jmfldnm"], "obligfldcd": jm["obligfldcd"],
            "obligfldnm": jm["obligfldnm"], "mdobligfldcd": jm["mdobligfldcd"], "mdobligfldnm": jm["mdobligfldnm"]}


def _jm_schedule(ctx: WorldContext, jms, rounds, held) -> TableData:
    """getJMList: this year's 회차 each 종목 sits, with the 종목 fields beside the dates."""
    by_jm = {jm["jmcd"]: jm for jm in jms}
    rows = []
    this_year = str(ctx.today.year)
    for r_i, rnd in enumerate(rounds):
        if rnd["implYy"] != this_year:
            continue
        for code in held[r_i]:
            rows.append({**_jm_fields(by_jm[code]),
                         **{w: rnd[_CAMEL[w]] for w in _SCHEDULE_WIRE if w != "description"}})
    rows.sort(key=lambda r: (r["jmcd"], r["docregstartdt"]))
    return TableData("qnet_jm_schedule", _columns(rows), entities={"jmcd": "jm_cd", "jmfldnm": "jm_name"})


def _jm_info(ctx: WorldContext, jms) -> TableData:
    """종목별 자격정보: most 종목 carry five 정보구분 rows; about one in eight has none published."""
    rng = ctx.rng("qnet", "info")
    rows = []
    for jm in jms:
        if jm["jmcd"] not in ANCHORS.values() and rng.random() < 0.12:
            continue
        name, field = jm["jmfldnm"], jm["mdobligfldnm"]
        texts = {
            "개요": f"{field} 분야의 전문 지식과 기술을 갖춘 인력을 양성하기 위하여 {name} 자격제도를 제정하였다.",
            "수행직무": f"{field} 관련 업무에 관한 계획, 설계, 시공, 관리 및 이에 관한 지도 등의 직무를 수행한다.",
            "진로 및 전망": f"{field} 관련 기업체, 공공기관, 연구소 등에 진출할 수 있으며 인력 수요는 꾸준할 전망이다.",
            "출제경향": f"{name} 출제기준에 따라 현장 실무 능력과 이론 지식을 평가한다.",
            "취득방법": "① 시행처 : 한국산업인력공단 ② 시험과목 : 필기 및 실기 ③ 합격기준 : 100점 만점에 60점 이상",
        }
        for gb in _INFO_GB:
            rows.append({**_jm_fields(jm), "infogb": gb, "contents": texts[gb]})
    return TableData("qnet_jm_info", _columns(rows), entities={"jmcd": "jm_cd", "jmfldnm": "jm_name"})


def _jm_fee(jms) -> TableData:
    rows = []
    for jm in jms:
        doc, prac = _FEES[jm["grade"]]
        rows.append({**_jm_fields(jm), "infogb": "필기", "contents": f"{doc:,}원"})
        if prac:
            rows.append({**_jm_fields(jm), "infogb": "면접" if jm["grade"] == "P" else "실기",
                         "contents": f"{prac:,}원"})
    return TableData("qnet_jm_fee", _columns(rows), entities={"jmcd": "jm_cd", "jmfldnm": "jm_name"})


# 필기 과목 of the anchors as published; other 종목 get generic 과목 named after their stem.
_KNOWN_SUBJECTS = {
    "1320": ["소프트웨어설계", "소프트웨어개발", "데이터베이스구축", "프로그래밍언어활용", "정보시스템구축관리"],
    "1150": ["전기자기학", "전력공학", "전기기기", "회로이론 및 제어공학", "전기설비기술기준"],
    "7910": ["한식 재료관리, 음식조리 및 위생관리"],
}


def _subjects(jms) -> TableData:
    """시험교시 과목: 필기 과목 (기사 5과목×20문항 150분, 기능사 1과목 60문항 60분 …) and one 실기 row."""
    rows = []
    for jm in jms:
        g, stem = jm["grade"], jm["stem"]
        names = _KNOWN_SUBJECTS.get(jm["jmcd"]) or {
            "P": [f"{stem}에 관한 사항"], "M": [f"{stem} 일반"], "C": [f"{stem} 일반"], "S": [f"{stem} 관계법규"],
        }.get(g, [f"{stem} 계획", f"{stem} 설계", f"{stem} 시공 및 관리", f"{stem} 관계법규"][: 3 if g == "I" else 4]
              + ([f"{stem} 일반"] if g == "E" else []))
        count, minutes = {"P": (4, 400), "M": (60, 60), "C": (60, 60), "S": (40, 120)}.get(g, (20, 30 * len(names)))
        for order, name in enumerate(names, start=1):
            rows.append({"jmcd": jm["jmcd"], "jmNm": jm["jmfldnm"], "dtlTypNm": "필기", "kmNm": name,
                         "kmOrder": str(order), "kmYn": "필수", "lssnNo": "1", "omrStdPnt": "100",
                         "qitemCnt": str(count if g in "PMCS" else 20), "selfldNm": "",
                         "seqNo": str(order), "suhmTmMi": str(minutes)})
        prac = "면접" if g == "P" else "실기"
        rows.append({"jmcd": jm["jmcd"], "jmNm": jm["jmfldnm"], "dtlTypNm": prac,
                     "kmNm": f"{jm['jmfldnm']} {'구술' if g == 'P' else '실무'}",
                     "kmOrder": "1", "kmYn": "필수", "lssnNo": "1", "omrStdPnt": "100", "qitemCnt": "0",
                     "selfldNm": "", "seqNo": str(len(names) + 1), "suhmTmMi": "150"})
    return TableData("qnet_subject", _columns(rows), entities={"jmcd": "jm_cd", "jmNm": "jm_name"})


JM_FIELDS = ("jmcd", "jmfldnm", "qualgbcd", "qualgbnm", "seriescd", "seriesnm", "obligfldcd", "obligfldnm",
             "mdobligfldcd", "mdobligfldnm")
_OBLIG = ("jmfldnm", "obligfldcd", "obligfldnm", "mdobligfldcd", "mdobligfldnm")
_SCHEDULE_WIRE = ("implplannm", "description", "docregstartdt", "docregenddt", "docexamstartdt", "docexamenddt",
                  "docpassdt", "docsubmitstartdt", "docsubmitenddt", "pracregstartdt", "pracregenddt",
                  "pracexamstartdt", "pracexamenddt", "pracpassstartdt", "pracpassenddt")
_CAMEL = {w: w for w in ("implplannm", "description")} | {
    "docregstartdt": "docRegStartDt", "docregenddt": "docRegEndDt", "docexamstartdt": "docExamStartDt",
    "docexamenddt": "docExamEndDt", "docpassdt": "docPassDt", "docsubmitstartdt": "docSubmitStartDt",
    "docsubmitenddt": "docSubmitEndDt", "pracregstartdt": "pracRegStartDt", "pracregenddt": "pracRegEndDt",
    "pracexamstartdt": "pracExamStartDt", "pracexamenddt": "pracExamEndDt", "pracpassstartdt": "pracPassDt",
    "pracpassenddt": "pracPassEndDt",
}
# The older host answers XML unless asked otherwise; `_type=json` is the usual selector (unconfirmed here).
_OLD_OPTS = {"format_param": "_type", "default_format": "xml", "ok_msg": "NORMAL SERVICE."}


def _grade_schedule(op: str, group: str) -> Endpoint:
    """getPEList / getMCList / getEList / getCList: this year's 회차 of one 등급 group (no parameters)."""
    return Endpoint("datagokr", QNET, f"{REST}/InquiryTestInformationNTQSVC/{op}", "qnet_exam_round",
                    columns={w: _CAMEL[w] for w in _SCHEDULE_WIRE if w != "implplannm"} | {"implplannm": "implplannm"},
                    fixed=(Cond("grp", "eq", group), Cond("thisYear", "eq", "Y")), options=_OLD_OPTS)


ENDPOINTS = [
    Endpoint("datagokr", QNET, f"{REST}/InquiryListNationalQualifcationSVC/getList", "qnet_jm",
             binds={"qualgbcd": Bind("qualgbcd", pattern=r"[TS]"), "seriescd": Bind("seriescd", pattern=r"\d{2}")},
             fields=JM_FIELDS, options=_OLD_OPTS),
    Endpoint("datagokr", QNET, f"{REST}/InquiryInformationTradeNTQSVC/getList", "qnet_jm_info",
             binds={"jmCd": Bind("jmcd", pattern=JM_CD)}, required=("jmCd",),
             fields=("jmfldnm", "infogb", "contents", "obligfldcd", "obligfldnm", "mdobligfldcd", "mdobligfldnm"),
             options=_OLD_OPTS),
    _grade_schedule("getPEList", "P"),
    _grade_schedule("getMCList", "M"),
    _grade_schedule("getEList", "EI"),
    _grade_schedule("getCList", "C"),
    Endpoint("datagokr", QNET, f"{REST}/InquiryTestInformationNTQSVC/getJMList", "qnet_jm_schedule",
             binds={"jmCd": Bind("jmcd", pattern=JM_CD)}, required=("jmCd",),
             fields=_OBLIG + _SCHEDULE_WIRE[:1] + _SCHEDULE_WIRE[2:], options=_OLD_OPTS),
    Endpoint("datagokr", QNET, f"{REST}/InquiryTestInformationNTQSVC/getFeeList", "qnet_jm_fee",
             binds={"jmCd": Bind("jmcd", pattern=JM_CD)}, required=("jmCd",),
             fields=("infogb", "contents", *_OBLIG), options=_OLD_OPTS),
    Endpoint("datagokr", QNET, f"{REST}/InquiryExamKmInfo/getList", "qnet_subject",
             binds={"jmCd": Bind("jmcd", pattern=JM_CD)}, required=("jmCd",),
             fields=("jmNm", "dtlTypNm", "kmNm", "kmOrder", "kmYn", "lssnNo", "omrStdPnt", "qitemCnt", "selfldNm",
                     "seqNo", "suhmTmMi"), options=_OLD_OPTS),
    Endpoint("datagokr", DATAGO, "/B490007/qualExamSchd/getQualExamSchdList", "qnet_exam_round",
             binds={"implYy": Bind("implYy", pattern=r"\d{4}"), "qualgbCd": Bind("qualgbCd", pattern=r"[TCWS]"),
                    "jmCd": Bind("jmCds", "contains", JM_CD)},
             fields=("implYy", "implSeq", "qualgbCd", "qualgbNm", "description", "docRegStartDt", "docRegEndDt",
                     "docExamStartDt", "docExamEndDt", "docPassDt", "pracRegStartDt", "pracRegEndDt",
                     "pracExamStartDt", "pracExamEndDt", "pracPassDt"),
             max_page_size=50,
             options={"format_param": "dataFormat", "default_format": "xml", "ok_msg": "NORMAL SERVICE.",
                      "page_size_code": "930"}),
]
