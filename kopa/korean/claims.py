"""Whether a text claims what it states, read on the analyzer (kiwipiepy): a value can be said as the
answer (affirmed), denied (7,500원이 아닙니다, 2건이 아님), guessed (아마 166명일 것입니다, 166명일 수도 있고,
166명으로 추정됩니다, 166명인 것 같습니다) or offered among others (166명 또는 167명). The words around a value
say what it counts (`counted_by`), whether it is a rate's base (1인당: `per_unit`) and whether they are only
units (`only_unit_words`).

Negation belongs to the value when the value's own predicate is the negative one: from the value to the first
predicate of its clause, no verb or adjective stands before 아니다 / 않다 / 못 (7,500원 차이가 아닙니다 is
denied; 3개 조문은 삭제되지 않았습니다 affirms three). A guess or an alternative anywhere in the sentence holding
the value makes the whole sentence a guess: 166명이 아니라 아마 167명 claims neither.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal

from kopa.korean.analyzer import kiwi

Polarity = Literal["affirmed", "negated", "hedged", "alternative"]

_HEDGE_WORDS = frozenset({"아마", "아마도", "어쩌면", "혹시", "추정", "추측", "예상", "가능성", "짐작"})
_KNOWING = frozenset({"이", "아니", "알", "모르", "단정", "확인"})  # 166명일 수도, 알 수 없지만, 단정할 수 없
_ALTERNATIVES = frozenset({"또는", "혹은", "아니면", "내지"})
_UNIT_NOUNS = frozenset({"곳", "배", "차례", "개월", "시간", "포인트", "퍼센트"})  # counters tagged as nouns
_OPERATORS = frozenset("+=*^×÷<>≠≤≥")  # x+1 around a value is arithmetic, not a unit
_PREDICATES = ("VV", "VA", "XSV", "XSA", "VX")
# An ending that ends a clause; 지 and 게 (…이지 않다, …하게 되다) and 어/아 join an auxiliary, not a clause
_JOINING = frozenset({"지", "게", "어", "아", "고"})


@lru_cache(maxsize=256)
def analysed(text: str) -> tuple[Any, ...]:
    """kiwipiepy's tokens of `text`, cached: the readings of one answer analyse the same text many times."""
    return tuple(kiwi().tokenize(text))


def _sentence(tokens: tuple[Any, ...], start: int, end: int) -> tuple[Any, ...]:
    """The tokens of the sentence holding [start, end)."""
    first, last = 0, len(tokens)
    for i, t in enumerate(tokens):
        if t.tag in ("SF", "EF") or (t.tag == "SP" and t.form == ";"):
            if t.start + t.len <= start:
                first = i + 1
            elif t.start >= end:
                last = i + 1
                break
    return tokens[first:last]


def _guessed(sentence: tuple[Any, ...]) -> bool:
    for i, t in enumerate(sentence):
        if t.form in _HEDGE_WORDS and t.tag in ("MAG", "NNG"):
            return True
        nxt = sentence[i + 1] if i + 1 < len(sentence) else None
        if t.tag == "NNB" and t.form == "듯":
            return True
        if t.tag == "NNB" and t.form == "것" and nxt is not None and nxt.form == "같" and nxt.tag == "VA":
            return True  # …인 것 같습니다
        if t.tag == "VV" and t.form == "모르":
            return True  # …일지도 모릅니다
        if t.form == "가능" and nxt is not None and nxt.tag == "XSN" and nxt.form == "성":
            return True  # …일 가능성이 높습니다
        if t.form == "확실" and any(x.form in ("않", "없") or x.tag == "VCN" for x in sentence[i + 1:i + 5]):
            return True  # …지만 확실하지 않습니다
        if t.tag == "VV" and t.form == "보이" and i and sentence[i - 1].form in ("로", "으로"):
            return True  # …로 보입니다
        prev = sentence[i - 1] if i else None
        if t.tag == "NNB" and t.form == "수" and prev is not None and prev.tag == "ETM" and i >= 2 \
                and (sentence[i - 2].form in _KNOWING or sentence[i - 2].tag == "EP"):
            rest = [x for x in sentence[i + 1:i + 3] if x.tag != "JX"]
            if rest and rest[0].form in ("있", "없"):
                return True  # …일 수도, 늘었을 수도 있습니다, 알 수 없지만 (not 쓸 수 있는: an ability)
        if (t.tag == "ETM" and t.form in ("ᆯ", "을") and nxt is not None and nxt.form == "것"
                and i + 2 < len(sentence) and sentence[i + 2].tag == "VCP"):
            return True  # …일 것입니다
    return False


def _denied(tokens: tuple[Any, ...], end: int) -> bool:
    """From the value ending at `end` to its clause's end: 아니다 denies the phrase holding the value
    (7,500원 차이가 아닙니다, 6.42% 변한 것은 아닙니다), as 없다 denies a clause made a noun (그대로 남아 있는
    것은 없습니다); 않다 / 못 deny a predicate the value measures (0.06% 높지
    않습니다) but not the predicate of a noun the value only counts (3개 조문은 삭제되지 않았습니다)."""
    counted_noun = predicate = nominalised = False
    previous = None
    for t in tokens:
        if t.start < end:
            continue
        if (t.tag == "SP" and t.form == ",") or t.tag == "SN":
            return False  # the clause ends (its sentence is cut already), or the next value has its own predicate
        if t.tag == "EC" and t.form not in _JOINING:
            return False
        if t.tag == "VCN":
            return True
        if t.tag == "NNB" and t.form == "것" and previous is not None and previous.tag == "ETM":
            nominalised = True  # …남아 있는 것은
        if t.tag == "VA" and t.form == "없" and nominalised:
            return True  # …남아 있는 것은 하나도 없습니다: nothing is
        previous = t
        if (t.tag == "VX" and t.form in ("않", "못하")) or (t.tag == "MAG" and t.form in ("안", "못")):
            return not counted_noun
        if t.tag in _PREDICATES:
            predicate = True
        elif t.tag in ("NNG", "NNP") and not predicate:
            counted_noun = True
    return False


def polarity(text: str, start: int, end: int) -> Polarity:
    """How `text` states what stands at [start, end): affirmed, negated, hedged or alternative."""
    tokens = analysed(text)
    sentence = _sentence(tokens, start, end)
    if any(t.form in _ALTERNATIVES and t.tag == "MAG" for t in sentence) or any(
            t.tag == "VCN" and after.form == "면" for t, after in pairwise(sentence)):  # 3 아니면 4
        return "alternative"
    if _guessed(sentence):
        return "hedged"
    if _denied(sentence, end):
        return "negated"
    return "affirmed"


_GLUED = re.compile(r"[^\s\d.,;:!?()\[\]{}\"'“”‘’·/|*]+")


def counted_by(text: str, end: int) -> str | None:
    """The word glued right after a value ending at `end`, its particles and endings left off — its counter
    or unit (88,236명이 → 명, 12월까지 → 월, 8호선에서 → 호선, 3년간 → 년간); None when nothing is glued."""
    glued = _GLUED.match(text, end)
    if glued is None:
        return None
    kept = end
    for t in analysed(text):
        if t.start + t.len <= end or t.start >= glued.end():
            continue
        if t.tag[0] not in "JE" and t.tag != "VCP":
            kept = min(t.start + t.len, glued.end())
    return text[end:kept] or None


def per_unit(text: str, end: int) -> bool:
    """A value ending at `end` that names a rate's base, not a quantity: 1인당, 1곳당, 100명당."""
    following = [t for t in analysed(text) if t.start >= end][:2]
    return any(t.tag == "XSN" and t.form == "당" for t in following)


def only_unit_words(text: str, start: int, end: int) -> bool:
    """Everything in `text` outside [start, end) is units, nouns, particles or a copula (원/L, 건, kcal,
    약 …입니다) — no predicate or adverb that could change what the value claims."""
    for t in analysed(text):
        if start <= t.start < end:
            continue
        if t.tag[0] in "VM" and t.tag not in ("VCP", "MM"):
            return False
        if t.tag == "IC" or any(c in _OPERATORS for c in t.form):
            return False
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence, as the analyzer splits them."""
    return [(s.start, s.end) for s in kiwi().split_into_sents(text)]


def is_predicate(text: str, end: int) -> bool:
    """The value ending at `end` is what its sentence predicates (비율은 19.62%입니다, 40개 더 많습니다, 1.33번이다):
    after it come only its unit, particles, adverbs, a predicate and endings — no other noun or value."""
    after = [t for t in analysed(text) if t.start >= end]
    if after and after[0].start == end and after[0].tag == "NNG":
        after = after[1:]  # a noun glued to the value counts it: 40문항, 3과목
        if not after:
            return True  # …하루 평균 5.87시간: the value and its counter end the text
    for t in after:
        if t.tag in ("SF", "EF") or (t.tag == "EC" and t.form not in _JOINING):
            return True
        if t.tag in ("SN", "NNP", "NR") or (t.tag == "NNG" and t.form not in _UNIT_NOUNS):
            return False
    return bool(after) and (after[-1].tag in ("VCP", "SSC", "SW", "NNB", "SL") or after[-1].form in _UNIT_NOUNS)


def listed(text: str, start: int) -> bool:
    """The value starting at `start` is one of a list of values (1, 2, 3 / 3건과 4건 / 3 또는 4)."""
    before = [t for t in analysed(text) if t.start + t.len <= start][-3:]
    if not before:
        return False
    last = before[-1]
    joined = (last.tag == "SP" and last.form == ",") or last.tag == "JC" or last.form in _ALTERNATIVES
    return joined and any(t.tag == "SN" or t.tag == "NNB" for t in before[:-1])


# Words that give a value a direction: a change (늘다, 감소하다) or a comparison (높다, 적다), and its sign.
_CHANGE = {"늘": 1, "증가": 1, "상승": 1, "오르": 1, "줄": -1, "감소": -1, "하락": -1, "떨어지": -1, "내리": -1}
_COMPARE = {"높": 1, "많": 1, "낮": -1, "적": -1}


def direction(text: str, end: int) -> tuple[str, int] | None:
    """('change' | 'compare', ±1) for the word the value ending at `end` is said with, in its clause
    (4.50% 줄었습니다: change −1; 1.04%p 낮습니다: compare −1); None when it has none."""
    word = _GLUED.match(text, end)
    glued = word.end() if word else end  # the rest of the value's own word: 159면
    for t in analysed(text):
        if t.start < end:
            continue
        if t.start < glued and (t.tag == "VCP" or (t.tag == "EC" and t.form == "면")):
            continue  # a counter the analyzer reads otherwise (159면: 이다 + the conditional 면)
        if t.tag in ("SF", "EF", "SN") or (t.tag == "EC" and t.form not in _JOINING):
            return None
        if t.form in _CHANGE and t.tag in ("VV", "NNG"):
            return "change", _CHANGE[t.form]
        if t.form in _COMPARE and t.tag in ("VA", "VV"):  # 6곳 적어서: the analyzer reads 적 as 적다 (write)
            return "compare", _COMPARE[t.form]
    return None


def asked_directions(query: str) -> set[tuple[str, int]]:
    """The directions a question asks in (몇 % 늘었나: change +1; 몇 % 낮은가: compare −1), its parentheses
    ((낮으면 음수로)) left out: they say how to write the other direction, not what is asked."""
    asked = re.sub(r"\([^()]*\)", " ", query)
    found = set()
    for t in analysed(asked):
        if t.form in _CHANGE and t.tag in ("VV", "NNG"):
            found.add(("change", _CHANGE[t.form]))
        elif t.form in _COMPARE and t.tag == "VA":
            found.add(("compare", _COMPARE[t.form]))
        elif t.form == "많이" and t.tag == "MAG":  # 몇 회 더 많이 치러지나요
            found.add(("compare", 1))
    return found


_MEASURES = (frozenset({"초", "분", "시간", "일", "주", "개월", "달", "년"}), frozenset({"mm", "cm", "m", "km"}),
             frozenset({"g", "kg", "톤", "t"}))


def asked_measure(query: str) -> str | None:
    """The unit of measure a question asks a number in (몇 초인가요 → 초), None when it asks a count or none."""
    tokens = analysed(query)
    for t, nxt in pairwise(tokens):
        if t.form == "몇" and any(nxt.form in family for family in _MEASURES):
            return str(nxt.form)
    return None


def other_measure(asked: str, said: str | None) -> bool:
    """`said` is another unit of the same measure than `asked` (90분 where 몇 초 is asked)."""
    return said is not None and said != asked and any(asked in f and said in f for f in _MEASURES)


def doubting_sentences(text: str) -> list[str]:
    """The sentences of `text` that guess or offer alternatives as a whole (다만 이 목록이 전부인지는 확실하지
    않으며, 아마 …일 것으로 추정됩니다): a doubt that may be about the answer wherever it stands."""
    doubting = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if polarity(sentence, 0, 0) in ("hedged", "alternative"):  # sentence-wide readings only
            doubting.append(sentence.strip())
    return doubting


_NOUNS = ("NNG", "NNP", "SL", "SH", "SN", "NNB", "XSN")  # a noun phrase: 2025년 공시, 국민의힘 의원의 찬성률


def _noun_run(tokens: tuple[Any, ...], before: int) -> str:
    """The nouns right before token `before`, joined without spaces (brackets skipped: 최저 조정가액(리픽싱
    하한) is 최저조정가액리픽싱하한)."""
    run: list[str] = []
    for t in reversed(tokens[:before]):
        if t.tag in _NOUNS:
            run.append(t.form)
        elif t.tag not in ("SSO", "SSC", "JKG") and t.form != "·":  # 결의일의 종가 is 결의일 종가; 학원·교습소
            break
    return "".join(reversed(run))


def _compared(tokens: tuple[Any, ...]) -> tuple[str, str]:
    """(subject, what it is compared with) of a comparison: the nouns before the last 은/는/이/가 ahead of
    보다 (else the first after it), and the nouns before 보다; ("", "") without a 보다."""
    than = next((i for i, t in enumerate(tokens) if t.tag == "JKB" and t.form == "보다"), None)
    if than is None:
        return "", ""
    topic = next((i for i in range(than - 1, -1, -1) if tokens[i].tag in ("JX", "JKS")), None)
    if topic is None:  # the subject after what it is compared with: 철수보다 영희는
        topic = next((i for i in range(than + 1, len(tokens)) if tokens[i].tag in ("JX", "JKS")), None)
    return (_noun_run(tokens, topic) if topic is not None else ""), _noun_run(tokens, than)


def _same(a: str, b: str) -> bool:
    return len(a) >= 2 and len(b) >= 2 and (a in b or b in a)


def reversed_comparison(query: str, text: str, start: int) -> bool:
    """The answer's sentence holding the value at `start` compares the other way round from the question:
    its subject is what the question compares with (Q: 정보처리기사 필기시험은 정보처리산업기사 필기시험보다
    몇 개 더 많나요? A: 정보처리산업기사 필기가 40문항 더 많습니다)."""
    asked_subject, asked_other = _compared(analysed(query))
    if not asked_subject or not asked_other:
        return False
    sentence = [t for t in _sentence(analysed(text), start, start + 1) if t.start < start]
    said = tuple(sentence)
    subject, other = _compared(said)  # the subject beside 보다 (남안동휴게소가 홍천휴게소보다 주차면이: 남안동휴게소)
    if not subject:
        subject_at = next((i for i in range(len(said) - 1, -1, -1) if said[i].tag in ("JX", "JKS")), None)
        subject = _noun_run(said, subject_at) if subject_at is not None else ""
    subject_turned = _same(subject, asked_other) and not _same(subject, asked_subject)
    other_turned = _same(other, asked_subject) and not _same(other, asked_other)
    # the answer's own wording may differ from the question's (코스피의 등락률 for 코스피 지수의 등락률): one side
    # that names the question's other side, and nothing that names the question's own side, turns it
    return ((subject_turned and not (other and _same(other, asked_other)))
            or (other_turned and not (subject and _same(subject, asked_subject))))
