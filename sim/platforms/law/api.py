"""국가법령정보센터 DRF (www.law.go.kr/DRF): 법령 (현행·시행일·연혁), 조문, 행정규칙, 자치법규, 판례, 해석례.

World: LAW_TOPICS × {법률, 대통령령, 부령} (plus derived 규칙/특례법 at full scale), each law with
several versions (법령일련번호 MST, one per version, rising with 공포일자) and one 조문 list. The 조문
list is kept per 법령ID and served for every version of that law — old versions do not carry their
own historical text (a simplification; the version metadata in 기본정보 is per MST).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import orjson

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import LAW_TOPICS, PLACE_STEMS, nfc
from sim.world.regions import SIDO_BY_CODE, SIDOS, SIGUNGU
from sim.world.table import Cond, TableData

HOST = "www.law.go.kr"
DATE_RANGE = r"\d{8}~\d{8}"

# 소관부처 per topic (부처명, 기관코드). Codes are the 행정기관코드 the portal uses for `org` (plausible).
_MINISTRIES = {
    "고용노동부": "1492000", "개인정보보호위원회": "1790500", "경찰청": "1320000", "국토교통부": "1613000",
    "행정안전부": "1741000", "과학기술정보통신부": "1721000", "금융위원회": "1160100", "교육부": "1342000",
    "보건복지부": "1352000", "환경부": "1480000", "식품의약품안전처": "1471000", "질병관리청": "1790387",
    "중앙선거관리위원회": "1220000", "국회사무처": "9710000", "법무부": "1270000", "기획재정부": "1051000",
    "관세청": "1220100", "문화체육관광부": "1371000", "지식재산처": "1430000", "여성가족부": "1383000",
    "소방청": "1661000", "방송통신위원회": "1750000",
}
_TOPIC_MINISTRY = {
    "산업안전보건": "고용노동부", "개인정보 보호": "개인정보보호위원회", "도로교통": "경찰청", "건축": "국토교통부",
    "주택임대차보호": "법무부", "근로기준": "고용노동부", "국민건강보험": "보건복지부", "지방자치": "행정안전부",
    "공공데이터의 제공 및 이용 활성화에 관한": "행정안전부", "전자정부": "행정안전부",
    "자본시장과 금융투자업에 관한": "금융위원회", "예금자보호": "금융위원회", "초ㆍ중등교육": "교육부",
    "고등교육": "교육부", "평생교육": "교육부", "국가기술자격": "고용노동부", "직업교육훈련 촉진": "교육부",
    "고용보험": "고용노동부", "도로": "국토교통부", "유료도로": "국토교통부", "여객자동차 운수사업": "국토교통부",
    "대기환경보전": "환경부", "물환경보전": "환경부", "폐기물관리": "환경부", "식품위생": "식품의약품안전처",
    "약사": "보건복지부", "의료": "보건복지부", "감염병의 예방 및 관리에 관한": "질병관리청",
    "공직선거": "중앙선거관리위원회", "정당": "중앙선거관리위원회", "국회": "국회사무처",
    "정치자금": "중앙선거관리위원회", "주민등록": "행정안전부", "가족관계의 등록 등에 관한": "법무부",
    "부동산 거래신고 등에 관한": "국토교통부", "국토의 계획 및 이용에 관한": "국토교통부", "상법": "법무부",
    "민법": "법무부", "형법": "법무부", "관세": "관세청", "부가가치세": "기획재정부", "소득세": "기획재정부",
    "법인세": "기획재정부", "지방세": "행정안전부", "전기통신사업": "과학기술정보통신부",
    "정보통신망 이용촉진 및 정보보호 등에 관한": "과학기술정보통신부", "저작권": "문화체육관광부",
    "특허": "지식재산처", "상표": "지식재산처", "청소년 보호": "여성가족부", "아동복지": "보건복지부",
    "장애인복지": "보건복지부", "노인복지": "보건복지부", "사회보장기본": "보건복지부",
    "재난 및 안전관리 기본": "행정안전부", "소방기본": "소방청", "화재의 예방 및 안전관리에 관한": "소방청",
}


def law_title(topic: str) -> str:
    """The 법률's name: '…에 관한' topics take '법률', names already ending in 법 stay as they are."""
    if topic.endswith("에 관한"):
        return f"{topic} 법률"
    return topic if topic.endswith("법") else f"{topic}법"


def _stem(topic: str) -> str:
    return topic.removesuffix("에 관한").removesuffix(" 등").removesuffix("법")


def _laws(ctx: WorldContext) -> list[dict]:
    """One dict per law (법령ID, 법령명, 법령구분명, 소관부처)."""
    rng = ctx.rng("law", "laws")
    out: list[dict] = []
    for topic in LAW_TOPICS:
        ministry = _TOPIC_MINISTRY.get(topic, "법무부")
        base = law_title(topic)
        kinds = [("법률", base)]
        if rng.random() < 0.85:
            kinds.append(("대통령령", f"{base} 시행령"))
        if rng.random() < 0.7:
            kinds.append(("부령", f"{base} 시행규칙"))
        if ctx.config.scale == "full":
            kinds.append(("부령", f"{_stem(topic)}기준에 관한 규칙"))
            if rng.random() < 0.6:
                kinds.append(("법률", f"{_stem(topic)}에 관한 특례법"))
                kinds.append(("대통령령", f"{_stem(topic)}에 관한 특례법 시행령"))
        for kind, name in kinds:
            out.append({"name": nfc(name), "kind": kind, "ministry": ministry, "topic": topic})
    ids = rng.choice(np.arange(1, 14000), size=len(out), replace=False)
    for law, law_id in zip(out, ids, strict=True):
        law["id"] = f"{int(law_id):06d}"
    return out


def _versions(ctx: WorldContext, laws: list[dict]) -> TableData:
    """Every version of every law: the eflaw/lsHistory rows; `law` serves the newest per law."""
    rng = ctx.rng("law", "versions")
    today = yyyymmdd(ctx.today)
    lo, hi = ctx.n(2, 30), ctx.n(7, 140)
    rows: list[tuple] = []  # (name, 시행일자 desc key, dict)
    for law in laws:
        n = int(rng.integers(lo, hi))
        start = dt.date(1960, 1, 1) + dt.timedelta(days=int(rng.integers(0, 14000)))
        span = (ctx.today + dt.timedelta(days=60) - start).days
        offsets = np.sort(rng.choice(span, size=min(n, span), replace=False))
        offsets[0] = 0
        lags = rng.choice([0, 0, 30, 90, 180, 365], size=len(offsets))
        kinds = rng.choice(["일부개정", "일부개정", "일부개정", "타법개정", "타법개정", "전부개정"], size=len(offsets))
        promulgated = [start + dt.timedelta(days=int(o)) for o in offsets]
        effective = [yyyymmdd(p + dt.timedelta(days=int(lag))) for p, lag in zip(promulgated, lags, strict=True)]
        in_force = [i for i, e in enumerate(effective) if e <= today]
        current = max(in_force, key=lambda i: (effective[i], i)) if in_force else 0
        for i, p in enumerate(promulgated):
            status = "현행" if i == current else ("시행예정" if effective[i] > today else "연혁")
            rows.append((law, yyyymmdd(p), effective[i], status, "제정" if i == 0 else str(kinds[i]),
                         i == len(promulgated) - 1, int(rng.integers(1000, 21000))))
    # MST rises with 공포일자 across all laws, as the real 법령일련번호 does.
    order = sorted(range(len(rows)), key=lambda i: (rows[i][1], rows[i][0]["id"]))
    msts = np.sort(rng.choice(np.arange(100000, 999999), size=len(rows), replace=False))
    mst_of = {row_i: f"{int(msts[k])}" for k, row_i in enumerate(order)}
    # Service order: 법령명 ascending (sort=lasc), newer 시행일자 first within a law.
    listing = sorted(range(len(rows)), key=lambda i: (rows[i][0]["name"], _neg(rows[i][2]), _neg(mst_of[i])))
    cols: dict[str, list] = {k: [] for k in (
        "법령일련번호", "현행연혁코드", "법령명한글", "법령약칭명", "법령ID", "공포일자", "공포번호", "제개정구분명",
        "소관부처코드", "소관부처명", "법령구분명", "시행일자", "자법타법여부", "법령상세링크", "nw", "latest")}
    nw_code = {"연혁": "1", "시행예정": "2", "현행": "3"}
    for i in listing:
        law, anc, eff, status, kind, latest, anc_no = rows[i]
        mst = mst_of[i]
        cols["법령일련번호"].append(mst)
        cols["현행연혁코드"].append(status)
        cols["법령명한글"].append(law["name"])
        cols["법령약칭명"].append("")
        cols["법령ID"].append(law["id"])
        cols["공포일자"].append(anc)
        cols["공포번호"].append(str(anc_no))
        cols["제개정구분명"].append(kind)
        cols["소관부처코드"].append(_MINISTRIES[law["ministry"]])
        cols["소관부처명"].append(law["ministry"])
        cols["법령구분명"].append(law["kind"])
        cols["시행일자"].append(eff)
        cols["자법타법여부"].append("")
        cols["법령상세링크"].append(f"/DRF/lawService.do?target=law&MST={mst}&type=HTML&efYd={eff}")
        cols["nw"].append(nw_code[status])
        cols["latest"].append("Y" if latest else "N")
    return TableData("law_version", cols, entities={
        "법령일련번호": "law_mst", "법령ID": "law_id", "법령명한글": "law_name", "소관부처코드": "ministry_code"})


def _neg(digits: str) -> str:
    """A key that sorts a digit string descending."""
    return "".join(chr(ord("9") - ord(c) + ord("0")) for c in digits)


_TITLES = ["목적", "정의", "적용 범위", "국가 등의 책무", "다른 법률과의 관계", "기본계획의 수립", "시행계획",
           "실태조사", "신고", "허가", "등록", "등록의 취소", "지정", "지정의 취소", "자료의 제출", "보고 및 검사",
           "시정명령", "청문", "권한의 위임", "수수료", "비밀유지", "벌칙 적용에서 공무원 의제", "과태료",
           "안전조치", "교육", "협회의 설립", "지원", "손해배상", "이의신청", "재정지원"]
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
_MOK = "가나다라마바사"
_CHAPTERS = ["총칙", "기본계획 등", "관리 및 감독", "지원", "보칙", "벌칙"]


def _article_rows(rng: np.random.Generator, law: dict, n: int, effective: str) -> list[dict]:
    stem = _stem(law["topic"])
    rows: list[dict] = []
    n_chapters = min(len(_CHAPTERS), max(1, n // 12))
    chapter_at = {1 + k * n // n_chapters: k for k in range(n_chapters)}
    jo = 1
    branch = 0
    hang_counts = rng.integers(0, 5, size=2 * n)
    branch_draw = rng.random(2 * n)
    titles = rng.integers(0, len(_TITLES), size=2 * n)
    for k in range(n):
        if branch == 0 and jo in chapter_at:
            ch = chapter_at[jo]
            rows.append({"조문번호": str(jo), "조문가지번호": "", "조문키": f"{jo:04d}000", "조문여부": "전문",
                         "조문제목": "", "조문내용": f"제{ch + 1}장 {_CHAPTERS[ch]}", "조문시행일자": effective,
                         "jo": "", "항": ""})
        title = "목적" if jo == 1 and branch == 0 else ("정의" if jo == 2 and branch == 0 else _TITLES[titles[k]])
        label = f"제{jo}조" + (f"의{branch}" if branch else "")
        hangs = []
        n_hang = int(hang_counts[k])
        for h in range(n_hang):
            hang: dict[str, Any] = {"항번호": _CIRCLED[h], "항내용": f"{_CIRCLED[h]} {stem}에 관한 {title} 사항은 대통령령으로 정한다."}
            if h == 0 and branch_draw[k] < 0.3:
                hos: list[dict[str, Any]] = []
                for o in range(1 + k % 4):
                    ho: dict = {"호번호": f"{o + 1}.", "호내용": f"{o + 1}. {stem} 관련 {_TITLES[(k + o) % len(_TITLES)]}"}
                    if o == 0 and k % 3 == 0:
                        ho["목"] = [{"목번호": f"{_MOK[m]}.", "목내용": f"{_MOK[m]}. 세부 기준 {m + 1}"} for m in range(2)]
                    hos.append(ho)
                hang["호"] = hos
            hangs.append(hang)
        body = f"{label}({title})" + ("" if hangs else f" {stem}에 관한 {title}은 이 법에서 정하는 바에 따른다.")
        rows.append({"조문번호": str(jo), "조문가지번호": str(branch) if branch else "",
                     "조문키": f"{jo:04d}{branch:02d}1", "조문여부": "조문", "조문제목": title, "조문내용": body,
                     "조문시행일자": effective, "jo": f"{jo:04d}{branch:02d}",
                     "항": orjson.dumps(hangs).decode() if hangs else ""})
        if branch_draw[n + k] < 0.06 and jo > 2:
            branch = 2 if branch == 0 else branch + 1
        else:
            jo, branch = jo + 1, 0
    return rows


def _articles(ctx: WorldContext, laws: list[dict], versions: TableData) -> TableData:
    rng = ctx.rng("law", "articles")
    eff_of: dict[str, str] = {}
    for law_id, eff, status in zip(versions.columns["법령ID"], versions.columns["시행일자"],
                                   versions.columns["현행연혁코드"], strict=True):
        if status == "현행" or law_id not in eff_of:
            eff_of[law_id] = eff
    sizes = rng.integers(ctx.n(6, 20), ctx.n(40, 320), size=len(laws))
    cols: dict[str, list] = {}
    for law, size in zip(laws, sizes, strict=True):
        for row in _article_rows(rng, law, int(size), eff_of[law["id"]]):
            row["법령ID"] = law["id"]
            for key, value in row.items():
                cols.setdefault(key, []).append(value)
    return TableData("law_article", cols, entities={"법령ID": "law_id", "jo": "law_jo"})


_CASE_KINDS = [("민사", "400101", "다", "손해배상(기)"), ("형사", "400102", "도", "{law}위반"),
               ("일반행정", "400103", "두", "{short}처분취소"), ("세무", "400104", "두", "부가가치세부과처분취소"),
               ("특허", "400105", "후", "등록무효(특)"), ("가사", "400106", "므", "이혼등")]
_COURTS = [("대법원", "400201"), ("서울고등법원", "400202"), ("서울중앙지방법원", "400202"),
           ("수원지방법원", "400202"), ("부산고등법원", "400202"), ("서울행정법원", "400202")]


def _precedents(ctx: WorldContext, laws: list[dict]) -> TableData:
    rng = ctx.rng("law", "prec")
    n = ctx.n(300, 6000)
    statutes = [law for law in laws if law["kind"] == "법률"]
    ids = np.sort(rng.choice(np.arange(100000, 640000), size=n, replace=False))
    kind_i = rng.integers(0, len(_CASE_KINDS), n)
    court_i = np.where(rng.random(n) < 0.55, 0, rng.integers(1, len(_COURTS), n))
    law_i = rng.integers(0, len(statutes), n)
    days = rng.integers(0, 365 * 30, n)
    case_no = rng.integers(1000, 99999, n)
    jos = rng.integers(1, 40, n)
    cols: dict[str, list] = {k: [] for k in (
        "판례일련번호", "사건명", "사건번호", "선고일자", "법원명", "법원종류코드", "사건종류명", "사건종류코드", "판결유형",
        "선고", "데이터출처명", "판례상세링크", "판시사항", "판결요지", "참조조문", "참조판례", "판례내용", "law_id")}
    for k in range(n):
        kind, kind_code, mark, title = _CASE_KINDS[int(kind_i[k])]
        court, court_code = _COURTS[int(court_i[k])]
        law = statutes[int(law_i[k])]
        day = ctx.today - dt.timedelta(days=int(days[k]) + 20)
        name = title.format(law=law["name"].replace(" ", ""), short=_stem(law["topic"]).replace(" ", ""))
        ref = f"{law['name']} 제{int(jos[k])}조"
        number = f"{day.year}{mark}{int(case_no[k])}" if court == "대법원" else f"{day.year}{'나누노구'[k % 4]}{int(case_no[k])}"
        cols["판례일련번호"].append(f"{int(ids[k])}")
        cols["사건명"].append(name)
        cols["사건번호"].append(number)
        cols["선고일자"].append(yyyymmdd(day))
        cols["법원명"].append(court)
        cols["법원종류코드"].append(court_code)
        cols["사건종류명"].append(kind)
        cols["사건종류코드"].append(kind_code)
        cols["판결유형"].append("판결" if k % 7 else "결정")
        cols["선고"].append("선고")
        cols["데이터출처명"].append("대법원")
        cols["판례상세링크"].append(f"/DRF/lawService.do?target=prec&ID={int(ids[k])}&type=HTML")
        cols["판시사항"].append(f"[1] {ref}에서 정한 요건의 의미 [2] {name} 사건에서 그 요건의 판단 기준")
        cols["판결요지"].append(f"[1] {ref}의 취지는 … [2] 원심의 판단은 정당하다.")
        cols["참조조문"].append(f"[1] {ref} [2] {ref}")
        cols["참조판례"].append("" if k % 3 else f"대법원 {day.year - 3}. 5. 12. 선고 {day.year - 3}{mark}{int(case_no[k]) // 2} 판결")
        cols["판례내용"].append(f"【원고, 피상고인】 … 【주문】 상고를 기각한다. 【이유】 {ref} …")
        cols["law_id"].append(law["id"])
    # Service order: 선고일자 descending (unconfirmed default sort).
    order = sorted(range(n), key=lambda i: (_neg(cols["선고일자"][i]), cols["판례일련번호"][i]))
    cols = {key: [vals[i] for i in order] for key, vals in cols.items()}
    return TableData("law_prec", cols, entities={"판례일련번호": "prec_id", "law_id": "law_id"})


_RULE_KINDS = ["훈령", "예규", "고시", "고시", "지침", "공고"]
_RULE_SUFFIX = ["업무처리 규정", "운영 지침", "세부 기준", "에 관한 고시", "사무처리 규칙", "심사 기준"]


def _topic_particle(word: str) -> str:
    """word + 은/는, by whether its last syllable has a final consonant."""
    return word + ("은" if (ord(word[-1]) - 0xAC00) % 28 else "는")


def _admin_rules(ctx: WorldContext, laws: list[dict]) -> TableData:
    rng = ctx.rng("law", "admrul")
    n = ctx.n(150, 3000)
    statutes = [law for law in laws if law["kind"] == "법률"]
    law_i = rng.integers(0, len(statutes), n)
    suffix_i = rng.integers(0, len(_RULE_SUFFIX), n)
    serial = np.sort(rng.choice(np.arange(10**6, 9 * 10**6), size=n, replace=False))
    rule_ids = rng.choice(np.arange(1000, 300000), size=n, replace=False)
    days = rng.integers(30, 365 * 20, n)
    cols: dict[str, list] = {k: [] for k in (
        "행정규칙일련번호", "행정규칙명", "행정규칙종류", "발령일자", "발령번호", "소관부처명", "현행연혁구분",
        "제개정구분명", "행정규칙ID", "행정규칙상세링크", "시행일자", "조문내용", "law_id")}
    names: dict[str, None] = {}
    for k in range(n):
        law = statutes[int(law_i[k])]
        suffix = _RULE_SUFFIX[int(suffix_i[k])]
        name = nfc(f"{_stem(law['topic'])}{'' if suffix.startswith('에') else ' '}{suffix}")
        if name in names:
            name = nfc(f"{name}({PLACE_STEMS[k % len(PLACE_STEMS)]})")
        names.setdefault(name)
        day = ctx.today - dt.timedelta(days=int(days[k]))
        kind = _RULE_KINDS[(k + int(suffix_i[k])) % len(_RULE_KINDS)]
        sn = f"2100000{int(serial[k]):06d}"[:13]
        cols["행정규칙일련번호"].append(sn)
        cols["행정규칙명"].append(name)
        cols["행정규칙종류"].append(kind)
        cols["발령일자"].append(yyyymmdd(day))
        cols["발령번호"].append(f"{day.year}-{int(serial[k]) % 300 + 1}")
        cols["소관부처명"].append(law["ministry"])
        cols["현행연혁구분"].append("현행")
        cols["제개정구분명"].append("일부개정" if k % 4 else "제정")
        cols["행정규칙ID"].append(str(int(rule_ids[k])))
        cols["행정규칙상세링크"].append(f"/DRF/lawService.do?target=admrul&ID={sn}&type=HTML")
        cols["시행일자"].append(yyyymmdd(day))
        topic = _topic_particle(kind)
        body = [f"제1조(목적) 이 {topic} 「{law['name']}」의 시행에 필요한 사항을 정함을 목적으로 한다.",
                f"제2조(적용 범위) 이 {topic} {law['ministry']} 소관 업무에 적용한다."]
        cols["조문내용"].append(orjson.dumps(body).decode())
        cols["law_id"].append(law["id"])
    return TableData("law_admrul", cols, entities={"행정규칙일련번호": "admrul_id", "law_id": "law_id"})


_ORDIN_TOPICS = ["주차장 설치 및 관리", "도시계획", "청소년 보호", "공유재산 관리", "지방공무원 복무", "주민참여예산제 운영",
                 "폐기물 관리", "건축", "옥외광고물 등 관리", "사회복지기금 설치 및 운용", "평생교육 진흥", "출산장려금 지원",
                 "청년 기본", "도서관 운영", "공공시설 개방 및 사용", "재난안전대책본부 구성 및 운영"]


def _ordinances(ctx: WorldContext) -> TableData:
    """자치법규 per 지자체: 시도 and 시군구 of regions.py, named with the 지자체's full name."""
    rng = ctx.rng("law", "ordin")
    bodies = [(s.code, s.name) for s in SIDOS] + [
        (g.code, f"{SIDO_BY_CODE[g.sido].name} {g.name}") for g in SIGUNGU if g.name != SIDO_BY_CODE[g.sido].name]
    per = ctx.n(3, 20)
    cols: dict[str, list] = {k: [] for k in (
        "자치법규일련번호", "자치법규명", "자치법규ID", "공포일자", "공포번호", "제개정구분명", "지자체기관명",
        "자치법규종류", "시행일자", "자치법규상세링크", "자치법규분야명", "region_code")}
    total = len(bodies) * per
    serials = np.sort(rng.choice(np.arange(1_000_000, 2_000_000), size=total, replace=False))
    ids = rng.choice(np.arange(1, 3_000_000), size=total, replace=False)
    combos = [(t, kind) for t in range(len(_ORDIN_TOPICS)) for kind in ("조례", "규칙")]
    k = 0
    for code, org in bodies:
        for j, c in enumerate(rng.choice(len(combos), size=per, replace=False)):
            t, kind = combos[int(c)]
            name = f"{org} {_ORDIN_TOPICS[t]} 조례" + (" 시행규칙" if kind == "규칙" else "")
            day = ctx.today - dt.timedelta(days=int(rng.integers(10, 365 * 15)))
            sn = f"{int(serials[k])}"
            cols["자치법규일련번호"].append(sn)
            cols["자치법규명"].append(nfc(name))
            cols["자치법규ID"].append(str(int(ids[k])))
            cols["공포일자"].append(yyyymmdd(day))
            cols["공포번호"].append(str(int(rng.integers(1, 2000))))
            cols["제개정구분명"].append("일부개정" if j % 3 else "제정")
            cols["지자체기관명"].append(org)
            cols["자치법규종류"].append(kind)
            cols["시행일자"].append(yyyymmdd(day))
            cols["자치법규상세링크"].append(f"/DRF/lawService.do?target=ordin&MST={sn}&type=HTML")
            cols["자치법규분야명"].append("일반행정" if t % 2 else "보건복지")
            cols["region_code"].append(code)
            k += 1
    return TableData("law_ordin", cols, entities={"자치법규일련번호": "ordin_id", "region_code": "region_code",
                                                  "지자체기관명": "region_name"})


def _interpretations(ctx: WorldContext, laws: list[dict]) -> TableData:
    rng = ctx.rng("law", "expc")
    n = ctx.n(100, 2000)
    ids = np.sort(rng.choice(np.arange(300000, 400000), size=n, replace=False))
    law_i = rng.integers(0, len(laws), n)
    jos = rng.integers(1, 40, n)
    days = rng.integers(10, 365 * 15, n)
    requesters = sorted(_MINISTRIES) + [s.name for s in SIDOS]
    req_i = rng.integers(0, len(requesters), n)
    cols: dict[str, list] = {k: [] for k in (
        "법령해석례일련번호", "안건명", "안건번호", "질의기관명", "회신기관명", "회신일자", "법령해석례상세링크",
        "질의요지", "회답", "이유", "law_id")}
    for k in range(n):
        law = laws[int(law_i[k])]
        day = ctx.today - dt.timedelta(days=int(days[k]))
        ref = f"「{law['name']}」 제{int(jos[k])}조"
        cols["법령해석례일련번호"].append(str(int(ids[k])))
        cols["안건명"].append(f"{law['name']} 제{int(jos[k])}조의 적용 범위({ref} 관련)")
        cols["안건번호"].append(f"{day.year % 100:02d}-{int(ids[k]) % 1000:04d}")
        cols["질의기관명"].append(requesters[int(req_i[k])])
        cols["회신기관명"].append("법제처")
        cols["회신일자"].append(yyyymmdd(day))
        cols["법령해석례상세링크"].append(f"/DRF/lawService.do?target=expc&ID={int(ids[k])}&type=HTML")
        cols["질의요지"].append(f"{ref}에 따른 의무가 … 경우에도 적용되는지?")
        cols["회답"].append("이 사안의 경우 해당 규정이 적용됩니다.")
        cols["이유"].append(f"{ref}의 문언과 입법 취지를 고려할 때 …")
        cols["law_id"].append(law["id"])
    order = sorted(range(n), key=lambda i: (_neg(cols["회신일자"][i]), cols["법령해석례일련번호"][i]))
    cols = {key: [vals[i] for i in order] for key, vals in cols.items()}
    return TableData("law_expc", cols, entities={"법령해석례일련번호": "expc_id", "law_id": "law_id"})


def tables(ctx: WorldContext) -> list[TableData]:
    laws = _laws(ctx)
    versions = _versions(ctx, laws)
    articles = _articles(ctx, laws, versions)
    return [versions, articles, _precedents(ctx, laws), _admin_rules(ctx, laws), _ordinances(ctx),
            _interpretations(ctx, laws)]


LAW_FIELDS = ("법령일련번호", "현행연혁코드", "법령명한글", "법령약칭명", "법령ID", "공포일자", "공포번호", "제개정구분명",
              "소관부처코드", "소관부처명", "법령구분명", "시행일자", "자법타법여부", "법령상세링크")
PREC_FIELDS = ("판례일련번호", "사건명", "사건번호", "선고일자", "법원명", "법원종류코드", "사건종류명", "사건종류코드",
               "판결유형", "선고", "데이터출처명", "판례상세링크")
ADMRUL_FIELDS = ("행정규칙일련번호", "행정규칙명", "행정규칙종류", "발령일자", "발령번호", "소관부처명", "현행연혁구분",
                 "제개정구분명", "행정규칙ID", "행정규칙상세링크", "시행일자")
ORDIN_FIELDS = ("자치법규일련번호", "자치법규명", "자치법규ID", "공포일자", "공포번호", "제개정구분명", "지자체기관명",
                "자치법규종류", "시행일자", "자치법규상세링크", "자치법규분야명")
EXPC_FIELDS = ("법령해석례일련번호", "안건명", "안건번호", "질의기관명", "회신기관명", "회신일자", "법령해석례상세링크")
# 기본정보 of lawService: the version row under the names the body uses.
LAW_INFO = {"법령ID": "법령ID", "법령일련번호": "법령일련번호", "공포일자": "공포일자", "공포번호": "공포번호",
            "법종구분": "법령구분명", "법령명_한글": "법령명한글", "시행일자": "시행일자", "제개정구분": "제개정구분명",
            "소관부처": "소관부처명", "소관부처코드": "소관부처코드", "현행여부": "현행연혁코드"}
ARTICLE_FIELDS = ("조문번호", "조문가지번호", "조문키", "조문여부", "조문제목", "조문내용", "조문시행일자", "항")

_LAW_SEARCH = {"kind": "search", "root": "LawSearch", "item": "law", "section": "lawNm",
               "query_column": "법령명한글", "ranges": {"ancYd": "공포일자", "efYd": "시행일자"}}
_NO_LAW = "일치하는 법령이 없습니다. 법령명을 확인하여 주십시오."


def _search(target: str, table: str, fields: tuple[str, ...], opts: dict, binds: dict[str, Bind] | None = None,
            fixed: tuple[Cond, ...] = ()) -> Endpoint:
    return Endpoint("law", HOST, f"lawSearch.do?target={target}", table, binds=binds or {}, fields=fields,
                    fixed=fixed, max_page_size=100, options={**opts, "target": target})


def _service(target: str, table: str, binds: dict[str, Bind], opts: dict) -> Endpoint:
    return Endpoint("law", HOST, f"lawService.do?target={target}", table, binds=binds,
                    options={"kind": "service", "target": target, **opts})


_LAW_BODY = {"body": "law", "root": "법령", "articles": "law_article", "article_fields": ARTICLE_FIELDS,
             "info": LAW_INFO, "no_data": _NO_LAW,
             "zero_pad": {"ID": 6}}

ENDPOINTS = [
    _search("law", "law_version", LAW_FIELDS, _LAW_SEARCH, fixed=(Cond("latest", "eq", "Y"),)),
    _search("eflaw", "law_version", LAW_FIELDS, _LAW_SEARCH,
            binds={"nw": Bind("nw", pattern=r"[123]"), "LID": Bind("법령ID", pattern=r"\d{6}")}),
    _search("lsHistory", "law_version", LAW_FIELDS, _LAW_SEARCH),
    _search("admrul", "law_admrul", ADMRUL_FIELDS,
            {"kind": "search", "root": "AdmRulSearch", "item": "admrul", "section": "admRulNm",
             "query_column": "행정규칙명", "ranges": {"date": "발령일자"}},
            binds={"knd": Bind("행정규칙종류")}),
    _search("ordin", "law_ordin", ORDIN_FIELDS,
            {"kind": "search", "root": "OrdinSearch", "item": "law", "section": "ordinNm",
             "query_column": "자치법규명", "ranges": {"ancYd": "공포일자", "efYd": "시행일자"}}),
    _search("prec", "law_prec", PREC_FIELDS,
            {"kind": "search", "root": "PrecSearch", "item": "prec", "section": "evtNm",
             "query_column": "사건명", "ranges": {"prncYd": "선고일자"}},
            binds={"curt": Bind("법원명"), "nb": Bind("사건번호"), "date": Bind.day("선고일자")}),
    _search("expc", "law_expc", EXPC_FIELDS,
            {"kind": "search", "root": "Expc", "item": "expc", "section": "lawNm",
             "query_column": "안건명", "ranges": {"regYd": "회신일자"}}),
    _service("law", "law_version", {"MST": Bind("법령일련번호", pattern=r"\d{1,10}"),
                                    "ID": Bind("법령ID", pattern=r"\d{1,6}")},
             {**_LAW_BODY, "prefer": ("latest", "Y")}),
    _service("eflaw", "law_version", {"MST": Bind("법령일련번호", pattern=r"\d{1,10}"),
                                      "ID": Bind("법령ID", pattern=r"\d{1,6}"),
                                      "efYd": Bind.any_date("시행일자")},
             {**_LAW_BODY, "prefer": ("nw", "3")}),
    _service("lawjosub", "law_version", {"MST": Bind("법령일련번호", pattern=r"\d{1,10}"),
                                         "ID": Bind("법령ID", pattern=r"\d{1,6}")},
             {**_LAW_BODY, "body": "josub", "prefer": ("latest", "Y")}),
    _service("prec", "law_prec", {"ID": Bind("판례일련번호", pattern=r"\d{1,10}")},
             {"body": "flat", "root": "PrecService", "rename": {"판례일련번호": "판례정보일련번호"},
              "fields": ("판례일련번호", "사건명", "사건번호", "선고일자", "선고", "법원명", "법원종류코드", "사건종류명",
                         "사건종류코드", "판결유형", "판시사항", "판결요지", "참조조문", "참조판례", "판례내용"),
              "no_data": "일치하는 판례가 없습니다. 판례명을 확인하여 주십시오."}),
    _service("admrul", "law_admrul", {"ID": Bind("행정규칙일련번호", pattern=r"\d{1,13}")},
             {"body": "admrul", "root": "AdmRulService", "fields": ADMRUL_FIELDS,
              "no_data": "일치하는 행정규칙이 없습니다. 행정규칙명을 확인하여 주십시오."}),
    _service("expc", "law_expc", {"ID": Bind("법령해석례일련번호", pattern=r"\d{1,10}")},
             {"body": "flat", "root": "ExpcService", "rename": {"회신일자": "해석일자", "회신기관명": "해석기관명"},
              "fields": ("법령해석례일련번호", "안건명", "안건번호", "회신일자", "회신기관명", "질의기관명", "질의요지",
                         "회답", "이유"),
              "no_data": "일치하는 법령해석례가 없습니다. 안건명을 확인하여 주십시오."}),
]
