"""How the offline generator words a query: which values a person can state at all, how each one is said
beside what is asked (by what the parameter is: a name, a region, a kind, an address, a party), what is
asked (`kopa.korean.vocabulary.subject`, read as a person says it), and the sentences around it — hand-written
frames for one ask, for a list asked with no value stated, and for two asks at once, and openers a person
starts with, by the domain asked about. Particles are the Korean layer's (`kopa.korean.sentence.fill`):
nothing here spells a particle after a value.

Values a person does not state are never put in a query: a value holding Han or kana (the assembly's hanja
names, 姜道玉; NEIS's '기술・가정' with a katakana middle dot — `kopa.korean.text.foreign_script`), and a
record's registered title ('진로 교육 제1802호', '지방 공무원 제2230호': the title column of a generated
dataset's records, a number nobody knows a record by).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from kopa.catalog.models import ParamSpec, Tool
from kopa.korean.sentence import fill
from kopa.korean.text import foreign_script
from kopa.korean.vocabulary import param_label, subject

T = TypeVar("T")

# a record's registered title: a number-title ('진로 교육 제1802호') or a listing's tagged one ('[용산구] 한강 클래식 1')
REGISTERED_TITLE = re.compile(r"\s제\d+호$|^\[[^\]]*\]")


def statable(value: object) -> bool:
    """Whether a person could write `value` in a Korean question: no Han or kana in it, and not a record's
    registered title."""
    text = str(value)
    return not foreign_script(text) and REGISTERED_TITLE.search(text) is None


# ------------------------------------------------------------------ what a stated value is, by its label

_REGION = re.compile(r"시군|자치구|구명|구 이름|지역명|행정구역|읍면동|시도명|시군구")
_KIND_WORD = re.compile(r"(업종|분야|분류|유형|종류)명?$")  # said after the value: '국제화 분야의', '서양음식 업종의'
_KIND = re.compile(r"구분|결과|선거구|호선|자격")  # said before what is asked: '원안가결 접수 의안'
PROVINCES = ("경기도", "서울")  # a subject's province, said before a region in it: '경기도 가평군의 낚시터'


def role(p: ParamSpec) -> str:
    """What the parameter's value is to the question, read from its label as a model reads it: 'kind' (a
    category: an enum, 업종, 분야, 구분), 'address', 'party' / 'member_of' (정당, 소속 …), 'in_charge'
    (소관위원회), 'region', or 'name' (the thing asked about)."""
    label = param_label(p)
    if p.enum or _KIND_WORD.search(label) or _KIND.search(label):
        return "kind"
    if "주소" in label:
        return "address"
    if "정당" in label:
        return "party"
    if "소속" in label:
        return "member_of"
    if "소관" in label:
        return "in_charge"
    if _REGION.search(label):
        return "region"
    return "name"


def stated_phrase(p: ParamSpec, said: str) -> str:
    """A name, a kind or an enum's meaning as a query says it before what is asked: '가평군의', '국제화 분야의',
    '3분기보고서', '서울 서대문구 천연동 812-28에 있는', '국민의힘 소속', '환경노동위원회 소관'. A phrase the
    vocabulary already made a whole modifier ("지번구분이 '산'인") stays as it is."""
    if said.endswith("인") and "'" in said:
        return said
    kind = role(p)
    if kind == "kind":
        word = _KIND_WORD.search(param_label(p))
        return f"{said} {word.group(1)}의" if word and not p.enum else said
    if kind == "address":
        return f"{said}에 있는"
    if kind in ("party", "member_of"):
        return f"{said} 소속"
    if kind == "in_charge":
        return f"{said} 소관"
    return f"{said}의" if re.search(r"[가-힣)]$", said) else said


# ------------------------------------------------------------------ what is asked

_STATUS = ("운영", "폐업", "지정", "인허가", "신규 등록", "이용", "위임", "인용", "개방", "처리")
# the aspects the vocabulary says of a subject ('경기도 노인복지시설의 점검 결과'): after a name that takes 의
# itself, said without a second one ('안성시의 노인복지시설 점검 결과')
ASPECTS = ("연도별 통계", "월별 통계", "점검 결과", "통계", "대수별 현황", "위원회별 현황", "월별 현황", "상세", "이력", "일정")
PERSONS = ("국회의원", "의원", "위원회 위원")  # asked of a person by name: '강도옥 국회의원 정보'


def asked(tool_subject: str) -> str:
    """What the endpoint answers as a question names it: a breakdown or a status said as one ('의안 대안반영 폐기
    위원회별' → '… 위원회별 현황', '경기도 공동주택 폐업' → '… 폐업 현황'), the latest as the latest ('국회 국정감사
    질의 최근' → '최근 국회 국정감사 질의')."""
    words = tool_subject.split()
    if not words:
        return tool_subject
    if words[-1] == "최근" and len(words) > 1:
        return "최근 " + " ".join(words[:-1])
    if (words[-1].endswith("별") and len(words[-1]) > 1) or tool_subject.endswith(_STATUS):
        return f"{tool_subject} 현황"
    return tool_subject


def subject_of(tool: Tool) -> str:
    """What the endpoint answers as a question names it; where the vocabulary's name has no Korean in it
    ('IC'), the catalog's title without its service words ('IC별 교통량')."""
    said = subject(tool)
    if not re.search(r"[가-힣]", said):
        said = re.sub(r"\s*(?:현황|목록)?\s*(?:조회|검색)?$", "", tool.spec.title).strip() or said
    return asked(said)


def instance(label: str, what: str) -> bool:
    """Whether a value under `label` names one of `what` ('정류소명' of 경기도 버스정류소, '화장실명' of 경기도
    공중화장실, '전철역명' of 서울 지하철역): the label's noun and the last word of `what` end alike, in two
    characters or more."""
    noun = re.sub(r"\s*(?:명|이름|명칭)$", "", label).strip()
    last = what.split()[-1] if what.split() else ""
    common = 0
    while common < min(len(noun), len(last)) and noun[-1 - common] == last[-1 - common]:
        common += 1
    return common >= 2


# ------------------------------------------------------------------ sentences

# One ask with what it is about stated: '<ask>' is a noun phrase ('가평군의 경기도 낚시터').
ASK_FRAMES = (
    "<ask:을> 알려 주세요.",
    "<ask:이> 궁금합니다.",
    "<ask:을> 확인해 주실 수 있나요?",
    "<ask:을> 조회해 주세요.",
    "<ask:을> 찾아봐 주시겠어요?",
    "<ask>에 대해 알고 싶어요.",
    "<ask:을> 보여 주세요.",
    "<ask:이> 필요해요.",
    "<ask:을> 알 수 있을까요?",
    "<ask:은> 어떻게 되나요?",
    "<ask:을> 좀 찾아 주세요.",
    "혹시 <ask:을> 확인할 수 있을까요?",
    "<ask:을> 정리해서 알려 주세요.",
    "<ask:이> 어떻게 되는지 알려 주실래요?",
    "<ask:을> 조회하고 싶습니다.",
    "<ask> 좀 알려 줄래요?",
    "<ask:을> 살펴보려고 하는데, 찾아 주실 수 있나요?",
    "<ask:을> 한번 확인해 보고 싶어요.",
)
# One ask with no value stated: the list of what the endpoint answers is what is wanted.
LIST_FRAMES = (
    "<what> 목록을 보여 주세요.",
    "<what> 목록을 조회해 주세요.",
    "등록된 <what> 목록을 알려 주세요.",
    "<what> 목록이 필요합니다.",
    "<what> 목록 좀 뽑아 주시겠어요?",
    "지금 조회되는 <what> 목록을 확인하고 싶어요.",
    "<what> 목록을 한번 보여 주실래요?",
    "<what> 목록을 찾아 주세요.",
)
# Two asks at once.
JOINED_FRAMES = (
    "<a:과> <b:을> 알려 주세요.",
    "<a:을> 알려 주시고, <b>도 찾아 주세요.",
    "<a:이> 궁금해요. <b>도 같이 알려 주실래요?",
    "<a:을> 먼저 보여 주시고, 이어서 <b>도 조회해 주세요.",
    "<a:과> 함께 <b>도 확인하고 싶어요.",
    "<a:을> 조회해 주세요. 그리고 <b>도 필요합니다.",
    "<a:을> 찾아 주시고 <b>도 함께 정리해 주세요.",
    "<a:이> 필요한데, <b>도 같이 봐 주시겠어요?",
    "두 가지를 확인하고 싶어요. 하나는 <a>, 다른 하나는 <b>입니다.",
    "<a:과> <b:을> 한꺼번에 조회해 주실 수 있나요?",
)
SHAPES = len(ASK_FRAMES) * len(LIST_FRAMES) * len(JOINED_FRAMES)

# A line a person may start with, by the domain asked about, and any domain's — no word of them a value a service
# returns ('기사' is a qualification, '구청' an institution): an opener states nothing the calls should ask.
OPENERS: dict[str | None, tuple[str, ...]] = {
    None: ("다음 주 회의 자료를 준비하고 있어요.", "보고서에 넣을 내용을 확인하려고 합니다.", "업무 참고용으로 필요합니다.",
           "고객 문의에 답하려고 합니다.", "급하게 확인할 게 있어요.", "자료 조사를 하고 있습니다.",
           "내부 검토용으로 정리하고 있어요.", "팀장님이 물어보셔서요.", "발표 자료에 넣으려고 해요.",
           "취재 자료를 모으고 있습니다."),
    "finance": ("투자 검토를 하고 있어요.", "거래처 사정을 살펴보는 중입니다.", "재무 분석 과제를 하고 있어요.",
                "주식 공부를 하면서 찾아보는 중이에요."),
    "law": ("계약서를 검토하다가 확인할 게 생겼어요.", "상담 전에 미리 확인해 두려고 합니다.", "관련 법령을 공부하는 중이에요.",
            "사내 규정을 고치려고 찾아보고 있어요."),
    "politics": ("의정 활동을 취재하고 있습니다.", "지역 현안을 정리하고 있어요.",
                 "시민단체 모니터링 자료를 만들고 있습니다.", "국회 일정을 챙기는 중이에요."),
    "education": ("아이 학교를 알아보고 있어요.", "학부모 회의에 가져갈 자료가 필요해요.", "교육청 보고 자료를 만들고 있습니다.",
                  "진학 상담을 준비하고 있어요."),
    "traffic": ("출장 동선을 짜고 있어요.", "주말 여행 계획을 세우는 중이에요.", "교통 민원에 답변을 준비하고 있어요.",
                "출퇴근 길을 바꿔 보려고 해요."),
    "district": ("동네 생활 안내문을 만들고 있어요.", "이사할 동네를 알아보는 중입니다.", "주민센터 안내 자료를 만들고 있어요.",
                 "민원 답변을 준비하고 있습니다."),
}


def opener(domain: str | None, rng: np.random.Generator) -> str:
    return pick((*OPENERS[None], *OPENERS.get(domain, ())), rng)


def one_ask(ask: str, stated: bool, shape: int) -> str:
    """The sentence of one ask: a frame of ASK_FRAMES where a value is stated, of LIST_FRAMES where none is."""
    if stated:
        return fill(ASK_FRAMES[shape % len(ASK_FRAMES)], {"ask": {"say": ask}})
    return fill(LIST_FRAMES[shape % len(LIST_FRAMES)], {"what": {"say": ask}})


def two_asks(first: str, second: str, shape: int) -> str:
    return fill(JOINED_FRAMES[shape % len(JOINED_FRAMES)], {"a": {"say": first}, "b": {"say": second}})


def listing(items: Sequence[str], rng: np.random.Generator) -> str:
    """'A, B', 'A와 B', 'A, B, C', 'A, B와 C'."""
    if len(items) >= 2 and rng.random() < 0.5:
        head = ", ".join(items[:-1])
        return f"{fill('<x:과>', {'x': {'say': head}})} {items[-1]}"
    return ", ".join(items)


def pick(options: Sequence[T], rng: np.random.Generator) -> T:
    return options[int(rng.integers(len(options)))]
