"""Pools of Korean name parts. Generated names are NFC strings built from these."""

from __future__ import annotations

import unicodedata

import numpy as np

SURNAMES = list("김이박최정강조윤장임한오서신권황안송전홍유고문양손배백허남심노하곽성차주우구민류나진지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용")
GIVEN = list("민서지현준우도윤하은수영진호성재정유연희경태동혁상훈승예주원아윤채빈혜인규석철광명숙미선자옥순")
COMPANY_HEADS = [
    "한빛", "대양", "동방", "세진", "태광", "미래", "우성", "삼화", "금강", "한성", "청솔", "누리", "대림", "신화",
    "동성", "새한", "진양", "한울", "가온", "다온", "해솔", "에이스", "유니", "코리아", "케이", "넥스", "하이",
    "제이", "에스", "브이", "라온", "아이", "온누리", "푸른", "한결", "도원", "서광", "영진", "성원", "광명",
    "대한", "국제", "동아", "화신", "백산", "현성", "청담", "경동", "태영", "일진", "삼정", "진흥", "유진", "휴먼",
]
COMPANY_TAILS = [
    "전자", "바이오", "테크", "제약", "화학", "건설", "홀딩스", "에너지", "소재", "반도체", "로직스", "헬스케어",
    "푸드", "산업", "통신", "정밀", "시스템", "엔지니어링", "디스플레이", "네트웍스", "모빌리티", "메디칼",
    "솔루션", "머티리얼즈", "게임즈", "엔터테인먼트", "인베스트먼트", "중공업", "물산", "제지",
]
PLACE_STEMS = [
    "한강", "남산", "백운", "청룡", "봉황", "새솔", "푸른솔", "늘푸른", "샛별", "햇살", "은빛", "가람", "누리",
    "다솜", "미리내", "별빛", "솔빛", "한마음", "동산", "서울숲", "상록", "대명", "신흥", "중앙", "제일", "동부",
    "서부", "남부", "북부", "영재", "으뜸", "한솔", "백제", "신라", "고려", "무궁", "태평", "평화", "장미",
]
LAW_TOPICS = [
    "산업안전보건", "개인정보 보호", "도로교통", "건축", "주택임대차보호", "근로기준", "국민건강보험", "지방자치",
    "공공데이터의 제공 및 이용 활성화에 관한", "전자정부", "자본시장과 금융투자업에 관한", "예금자보호",
    "초ㆍ중등교육", "고등교육", "평생교육", "국가기술자격", "직업교육훈련 촉진", "고용보험", "도로", "유료도로",
    "여객자동차 운수사업", "대기환경보전", "물환경보전", "폐기물관리", "식품위생", "약사", "의료", "감염병의 예방 및 관리에 관한",
    "공직선거", "정당", "국회", "정치자금", "주민등록", "가족관계의 등록 등에 관한", "부동산 거래신고 등에 관한",
    "국토의 계획 및 이용에 관한", "상법", "민법", "형법", "관세", "부가가치세", "소득세", "법인세", "지방세",
    "전기통신사업", "정보통신망 이용촉진 및 정보보호 등에 관한", "저작권", "특허", "상표", "청소년 보호",
    "아동복지", "장애인복지", "노인복지", "사회보장기본", "재난 및 안전관리 기본", "소방기본", "화재의 예방 및 안전관리에 관한",
]


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def person_names(rng: np.random.Generator, n: int) -> list[str]:
    sur = rng.integers(0, len(SURNAMES), n)
    g1 = rng.integers(0, len(GIVEN), n)
    g2 = rng.integers(0, len(GIVEN), n)
    return [nfc(SURNAMES[a] + GIVEN[b] + GIVEN[c]) for a, b, c in zip(sur, g1, g2, strict=True)]


def unique_names(candidates: list[str], n: int) -> list[str]:
    """The first n distinct names in order; raises if the pool is too small (a generator bug)."""
    seen: dict[str, None] = {}
    for name in candidates:
        seen.setdefault(name)
        if len(seen) == n:
            return list(seen)
    raise ValueError(f"name pool too small: wanted {n}, got {len(seen)}")
