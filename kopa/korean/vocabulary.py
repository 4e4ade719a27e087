"""How a person names what an endpoint answers and states a value: the query writers' vocabulary.

A question names the data the way a user knows it ("삼성전자의 전환사채권 발행결정", "2025년 11월 3일 코스닥
일별 매매"), never by the catalog's title, a wire parameter or a paging window. Two things feed it, both read
from the catalog as a model sees it (DESIGN.md decision 2):

- a tool's *subject*: the catalog's `ask` frame where the tool has one (hand-written: "회사", "법령"), else
  its title without the catalog's section prefix ("공시정보 - ", "예금보험공사_") and the service words a
  person does not say ("정보", "조회", "목록", "서비스", "안내");
- a value's *phrase*: a name as it is, a date as a date, an enum value by the meaning its description gives
  ("A 정기공시" → 정기공시). A value with neither — an identifier from the validated cache — is a code
  the chain must look up from a name, so it is not statable and a trajectory may not take it as given.
"""

from __future__ import annotations

import re

from kopa.catalog.models import ParamSpec, Tool
from kopa.korean.dates import DAY, MONTH, YEAR, date_phrase
from kopa.korean.particles import josa

HANGUL = re.compile(r"[가-힣]")
_SECTION = re.compile(r"^.*(?: - |_\(?[A-Z]+\)?_|_)")  # "공시정보 - ", "국토교통부_(TAGO)_", "예금보험공사_"
_TRAILING = ("목록 조회", "조회", "검색", "목록", "정보", "안내", "서비스", "API", "통합", "현황", "인적사항",
             "지역별", "연도별", "기간별", "기준일자별")
# The aspects a dataset's title ends in ("경기도 노인복지시설 연도별 통계"), read as the aspect of its subject.
_ASPECTS = ("연도별 통계", "월별 통계", "점검 결과", "통계", "대수별 현황", "위원회별 현황", "월별 현황", "상세",
            "이력", "일정")
_TRAILING_PAREN = re.compile(r"\s*\((?:상세|[^)]*훈련과정|시험교시 과목)\)$")
_CODE_WORDS = ("코드", "번호", "ID", "아이디", "고유", "식별")
_DATE_WORDS = ("일자", "날짜", "기준일", "YYYYMMDD", "일(", "시작일", "종료일")
_MONTH_WORDS = ("년월", "YYYYMM", "기준월")
_YEAR_WORDS = ("연도", "년도", "YYYY")
_CATCH_ALL = ("기타", "그외", "그 외", "등")


def description_label(description: str) -> str:
    """A short Korean label from a field's or parameter's description: up to the first separator."""
    label = re.split(r"\s*[:(/,]|\s-\s", description.strip())[0].strip()
    if len(label) < 2:  # "음/양력 구분" is not "음": the slash joins the name's own parts
        label = re.split(r"\s*[:(,]|\s-\s", description.strip())[0].strip()
    # a column name for a label ("영역_면적", "자치구_") reads with spaces
    return label.replace("_", " ").strip()[:24]


# the kinds a column heading ends in, said as words of their own ("제개정구분명" → "제개정 구분",
# "중직무분야명" → "중직무 분야"); the '명' (name) after a kind is not said: a kind is its name
_KIND_TAIL = re.compile(r"^(?P<head>.*?)\s*(?P<kind>구분|종류|유형|분야|계열|부처|정당|위원회|기관|직책|상태|카테고리)명?$")
_TOTAL_TAIL = re.compile(r"^(?P<head>[가-힣]{2,}?)(?P<total>합계|총계)$")


def spoken(label: str) -> str:
    """A column heading as a person says it: '제개정구분명' → '제개정 구분', '직책명' → '직책', '정원합계' →
    '정원 합계', '프리미엄여부' → '프리미엄' (a Y/N flag is said by what Y means). The catalog's `say` is for
    what no rule reads (소관위회부일)."""
    text = label.strip()
    if text.endswith("여부") and len(text) > 2:
        return text[:-2].strip()
    kind = _KIND_TAIL.match(text)
    if kind is not None:
        head = kind.group("head").strip()
        return f"{head} {kind.group('kind')}" if head else kind.group("kind")
    total = _TOTAL_TAIL.match(text)
    if total is not None:
        return f"{total.group('head')} {total.group('total')}"
    return text


def param_label(param: ParamSpec) -> str:
    return description_label(param.description)


def subject(tool: Tool) -> str:
    """What the endpoint answers, as a person names it."""
    if tool.spec.ask:
        return tool.spec.ask
    text = _SECTION.sub("", tool.spec.title).strip()
    text = _TRAILING_PAREN.sub("", text).strip()
    changed = True
    while changed:
        changed = False
        for word in _TRAILING:
            # '학교 기본정보' keeps its 정보: '기본' alone names nothing
            if text.endswith(word) and len(text) > len(word) + 1 and not text[: -len(word)].endswith("기본"):
                text, changed = text[: -len(word)].rstrip(" _-"), True
    text = re.sub(r"^서울시\s*", "서울 ", text)
    if text == tool.spec.title:  # nothing a person would drop: say whose aspect it is ("X의 연도별 통계")
        aspect = next((a for a in _ASPECTS if text.endswith(" " + a)), None)
        if aspect is not None:
            text = f"{text[: -len(aspect) - 1]}의 {aspect}"
    return text or tool.spec.title


def enum_meaning(param: ParamSpec, value: str) -> str | None:
    """The meaning the parameter's description gives an enum value ('A 정기공시', 'Y(유가)', '11011 사업보고서');
    a Korean value is its own meaning ('특수학교', not the '등' that follows it). A catch-all ('기타') is
    not something a person asks for."""
    meaning = value if HANGUL.search(value) else _described(param.description, value) or ""
    return meaning if HANGUL.search(meaning) and meaning not in _CATCH_ALL else None


def _described(description: str, value: str) -> str | None:
    """The Korean words a description puts beside `value`: after it ('A 정기공시', 'Y(유가)', 'B10
    서울특별시교육청') or, in a list of the other order, before it ('1분기보고서 11013, 반기보고서 11012')."""
    after = re.search(rf"(?<![\w]){re.escape(value)}\s*(?:\(([^)]+)\)|[:=]?\s*([가-힣][^,;/)]*))", description)
    if after is not None:
        return (after.group(1) or after.group(2) or "").strip()
    before = re.search(rf"(?:^|[,:;(]\s*)([가-힣0-9][가-힣0-9 ]*?[가-힣])\s*{re.escape(value)}(?![\w])", description)
    return None if before is None else before.group(1).strip()


def documented_name(param: ParamSpec, value: object) -> str | None:
    """The name the parameter's own documentation gives a code it shows ('시도교육청코드 (예: B10 서울특별시교육청,
    …)' → B10 is 서울특별시교육청; '계열코드 (01 기술사, 02 기능장, …)'): a code a reader of the docs can state
    by name, and a model reading the same docs can map back. Only from the examples after '예:', or from a
    list of two or more 'code name' pairs — not '기본값 100'."""
    text = str(value).strip()
    if not text or HANGUL.search(text) or param.enum:
        return None
    head, sep, examples = param.description.partition("예")
    pairs = dict(_CODE_NAME.findall(examples.lstrip(" :") if sep else head))
    if not sep and len(pairs) < 2:
        return None
    named = pairs.get(text)
    return named if named and named not in (*_CATCH_ALL, "전체") else None


_CODE_NAME = re.compile(r"(?<![\w-])([A-Za-z]*\d[A-Za-z0-9]*)\s*[:=]?\s*([가-힣][가-힣0-9]*(?:\([가-힣]+\))?)")


def stated_name(value: str) -> bool:
    """A name a person states (Korean text), not a slash-joined history ("더불어민주당/더불어민주당/진보당")."""
    return HANGUL.search(value) is not None and "/" not in value


def stated_enum(param: ParamSpec) -> list[str]:
    """The enum values a person can state (those the description gives a meaning)."""
    return [v for v in param.enum or [] if value_phrase(param, v) is not None]


def is_code_like(description: str) -> bool:
    """An identifier by its documentation (고유번호, 구코드, 정류소ID): a value a lookup produces."""
    return any(w in description for w in _CODE_WORDS)


def value_phrase(param: ParamSpec, value: object) -> str | None:
    """How a person states `value` for `param`; None when a person would not know it (a code)."""
    text = str(value).strip()
    if not text or param.paging:
        return None
    if param.enum and text in param.enum:
        meaning = enum_meaning(param, text)
        label = param_label(param)
        # a kind that does not say what it classifies ('산', '대지' of 지번구분) is said with its label
        if meaning is not None and label and (len(meaning) == 1 or label.endswith("구분")):
            return f"{josa(label, '이/가')} '{meaning}'인"
        return meaning
    if HANGUL.search(text):
        return text
    desc = param.description
    if param_label(param) == "대수" and text.isdigit():  # the National Assembly's term: '제22대 국회'
        return f"제{text}대 국회"
    if DAY.match(text) and any(w in desc for w in _DATE_WORDS):
        return date_phrase(text)
    if MONTH.match(text) and any(w in desc for w in _MONTH_WORDS + _DATE_WORDS):
        return date_phrase(text)
    if YEAR.match(text) and any(w in desc for w in _YEAR_WORDS):
        return date_phrase(text)
    return None


def is_contains(param: ParamSpec) -> bool:
    """A search that matches part of a name ("검색값을 포함하는 항목", "정식명칭의 일부")."""
    return (param.match == "contains" and param.location == "client") or any(
        w in param.description for w in ("포함", "일부"))


def entity_noun(label: str) -> str | None:
    """What an identifier field names ('시군구코드' → 시군구, '정류소ID' → 정류소, '시군 행정코드' → 시군,
    '행정표준 학교코드' → 학교, '공시대상회사의 고유번호' → 회사); None for a bare code ('고유번호'), a field that
    is not an identifier, and one that names no thing a person asks about: a phone or postal number, a kind
    ('상하행구분코드'), a result's own numbering ('결과 번호')."""
    if not is_code_like(label) or _NOT_ENTITY.search(label):
        return None
    # a standard code names its entity before it ('휴게소 표준코드' → 휴게소, '시군 행정표준코드' → 시군); a
    # school's bare '행정표준코드' names none
    noun = _CODE_TAIL.sub("", label).strip()
    if noun == label:
        return None
    if noun.endswith("의") and f"{noun} " in label:  # a genitive before the code: '공시대상회사의 고유번호'
        noun = noun[:-1]
    noun = noun.split()[-1] if noun.split() else ""  # '대표발의자 국회의원' → 국회의원
    noun = _QUALIFIER_HEAD.sub("", noun)  # '표준학교' → 학교, '공시대상회사' → 회사
    if not HANGUL.search(noun) or noun in _QUALIFIERS or noun.endswith("구분"):
        return None
    return noun


# what a code's label says of the code itself, not of what it names: stripped from the end, repeatedly
_CODE_TAIL = re.compile(r"(?:\s*(?:행정표준코드|표준코드|고유번호|코드|아이디|ID|번호|식별자|식별|고유|일련|등록|행정|표준|단축"
                        r"|정보|관리|지정))+$")
_QUALIFIER_HEAD = re.compile(r"^(?:행정표준|표준|공시대상)")
_QUALIFIERS = frozenset({"", "단축", "외부", "결과", "대상", "항목", "현행연혁", "조문가지", "발령", "공포", "접수"})
_NOT_ENTITY = re.compile(r"전화|팩스|우편|ARS|년분기|삭제된")


_DIRECTED = re.compile(r"(?P<base>[가-힣0-9]+)\((?P<way>[가-힣]+)\)(?P<kind>휴게소|주유소|졸음쉼터|충전소)")


def spoken_place(name: str) -> str:
    """A highway facility as a person says it: 한국도로공사 writes the direction inside the name
    ('노포(부산)휴게소': the 노포 rest area on the side bound for 부산); people say '노포휴게소(부산 방향)'.
    Any other name is returned as it is."""
    m = _DIRECTED.fullmatch(name.strip())
    if m is None:
        return name
    way = m["way"] if m["way"].endswith("방향") else f"{m['way']} 방향"
    return f"{m['base']}{m['kind']}({way})"
