"""The sentences the offline generator writes around what is asked (`kopa.apigen.asks`): hand-written frames
for one ask, for a fact asked of a subject, for a set of things, and for two things asked of the same
subject at once. Particles are the Korean layer's (`kopa.korean.sentence.fill`): nothing here spells a
particle after a value.

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

from kopa.catalog.models import Tool
from kopa.korean.particles import particle
from kopa.korean.sentence import fill
from kopa.korean.text import foreign_script
from kopa.korean.vocabulary import subject

T = TypeVar("T")

# a record's registered title: a number-title ('진로 교육 제1802호') or a listing's tagged one ('[용산구] 한강 클래식 1')
REGISTERED_TITLE = re.compile(r"\s제\d+호$|^\[[^\]]*\]")


def statable(value: object) -> bool:
    """Whether a person could write `value` in a Korean question: no Han or kana in it, and not a record's
    registered title."""
    text = str(value)
    return not foreign_script(text) and REGISTERED_TITLE.search(text) is None


def subject_of(tool: Tool) -> str:
    """What the endpoint answers as the catalog's vocabulary names it (the chat generator's sampler tells two
    editions of one table apart by it); where that has no Korean in it ('IC'), the catalog's title without
    its service words ('IC별 교통량')."""
    said = subject(tool)
    if not re.search(r"[가-힣]", said):
        said = re.sub(r"\s*(?:현황|목록)?\s*(?:조회|검색)?$", "", tool.spec.title).strip() or said
    return said


# ------------------------------------------------------------------ sentences

# One ask: '<ask>' is a noun phrase ('경기도 가평군의 주차장', '강순영 의원의 이력', '고속도로 휴게소 목록').
ASK_FRAMES = (
    "<ask:을> 알려 주세요.",
    "<ask:을> 확인해 주실 수 있나요?",
    "<ask:을> 조회해 주세요.",
    "<ask:을> 찾아봐 주시겠어요?",
    "<ask:을> 보여 주세요.",
    "<ask:을> 알 수 있을까요?",
    "<ask:을> 좀 찾아 주세요.",
    "혹시 <ask:을> 확인할 수 있을까요?",
    "<ask:을> 조회하고 싶습니다.",
    "<ask> 좀 알려 줄래요?",
    "<ask:을> 찾고 있는데, 알려 주실 수 있나요?",
    "<ask:을> 한번 확인해 보고 싶어요.",
)
# … of anything but things in a place ('…에 있는 공중화장실이 필요해요' would ask for a toilet)
ASIDE_FRAMES = (
    "<ask:이> 궁금합니다.",
    "<ask:이> 필요해요.",
)
# … of a set of things, not one fact ('…의 위치를 정리해서' is one thing to tidy)
LIST_FRAMES = (
    "<ask:을> 정리해서 알려 주세요.",
)
# … of a fact about a subject ('강순영 의원의 소속 정당과 지역구'): asked how it stands
FACT_FRAMES = (
    "<ask:은> 어떻게 되나요?",
    "<ask:이> 어떻게 되는지 알려 주실래요?",
    "<ask:이> 궁금한데 알려 주세요.",
)
# … of things in a place ('경기도 가평군의 주차장'): asked where they are, or as a list
PLACE_FRAMES = (
    "<ask:이> 어디에 있는지 알려 주세요.",
    "<ask> 목록 좀 뽑아 주시겠어요?",
    "<ask> 목록을 보여 주세요.",
)
# Two things asked of the same subject ('<s>' said once: '경기도 가평군, 고양시', '강순영 의원'): joined by 과,
# or (SEPARATE_FRAMES) each in its own clause — where either is two things already ('주소와 연락처').
SEPARATE_FRAMES = (
    "<s>의 <a:이> 궁금해요. <b>도 같이 알려 주실래요?",
    "<s>의 <a:을> 알려 주시고, <b>도 찾아 주세요.",
    "<s>의 <a:을> 조회해 주세요. <b>도 필요합니다.",
    "<s>의 <a:을> 찾아 주시고, <b>도 함께 알려 주세요.",
)
JOINED_FRAMES = (
    *SEPARATE_FRAMES,
    "<s>의 <a:과> <b:을> 알려 주세요.",
    "<s>의 <a:과> <b:을> 같이 찾아봐 주시겠어요?",
    "<s>의 <a:과> <b:을> 한꺼번에 확인하고 싶어요.",
    "<s>에 대해 <a:과> <b:을> 정리해 주세요.",
    "<s>의 <a:과> <b:을> 함께 알 수 있을까요?",
)
TWO_THINGS = re.compile(r"[과와] |·| 및 ")
SHAPES = len(ASK_FRAMES) * len(ASIDE_FRAMES) * len(LIST_FRAMES) * len(FACT_FRAMES) * len(PLACE_FRAMES) * \
    len(JOINED_FRAMES)


def one_ask(ask: str, shape: int, fact: bool = False, places: bool = False) -> str:
    """The sentence of one ask: a frame of ASK_FRAMES, or of those that fit a fact (how it stands), a set of
    things (to tidy up), things in a place (where they are) or anything else (wanted, wondered about)."""
    frames = ASK_FRAMES + (FACT_FRAMES if fact else LIST_FRAMES) + \
        (PLACE_FRAMES if places and not ask.endswith("목록") and "에 있는" not in ask else
         ASIDE_FRAMES if not places else ())
    return fill(frames[shape % len(frames)], {"ask": {"say": ask}})


def two_asks(about: str, first: str, second: str, shape: int) -> str:
    """Two things asked of one subject, the subject said once; each in its own clause where either is two
    things already ('…의 주소와 연락처를 알려 주시고, 학생 수도 찾아 주세요', not '주소와 연락처와 학생 수')."""
    frames = SEPARATE_FRAMES if TWO_THINGS.search(f"{first} {second}") else JOINED_FRAMES
    return fill(frames[shape % len(frames)],
                {"s": {"say": about}, "a": {"say": first}, "b": {"say": second}})


def with_subject(template: str, about: str) -> str:
    """`template` with its subject `<s>` (and `<s:은>`) said as `about`; a particle after a name with a
    parenthesis ('…법률안(의안번호 2200463)') follows the name, as it is read ('…법률안(의안번호 2200463)은')."""
    base = re.sub(r"\([^()]*\)$", "", about)
    return re.sub(r"<s(?::(?P<p>[가-힣]+))?>",
                  lambda m: about + (particle(base, m["p"]) if m["p"] else ""), template)


def listing(items: Sequence[str], rng: np.random.Generator) -> str:
    """'A, B', 'A와 B', 'A, B, C', 'A, B와 C'."""
    if len(items) >= 2 and rng.random() < 0.5:
        head = ", ".join(items[:-1])
        return f"{fill('<x:과>', {'x': {'say': head}})} {items[-1]}"
    return ", ".join(items)


def pick(options: Sequence[T], rng: np.random.Generator) -> T:
    return options[int(rng.integers(len(options)))]
