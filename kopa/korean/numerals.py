"""Numbers written in Korean words, read on the analyzer (kiwipiepy): Sino-Korean magnitudes with digits
(7천5백, 1억 2천만, 6,684만 9,368, 2,811.42억) or spelled out (백육십육), and native numerals before a counter (두 차례, 아홉 명,
스물다섯 곳, 열한 건). `spelled_numerals` finds them; `with_digits` writes each as plain digits, so a
reader of digits (the scorer's) reads the same value the words say.

Not read as numbers: a native word before a noun that counts nothing (세 법률, 한 해), ordinals (세 번째, 첫째),
ranges and estimates (두세 건, 수천 건) — a range is not one value.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from kopa.korean.analyzer import kiwi

_SMALL = {"십": 10, "백": 100, "천": 1000}
_SINO_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_LARGE = {"만": 10**4, "억": 10**8, "조": 10**12}
_NATIVE = {"하나": 1, "한": 1, "둘": 2, "두": 2, "셋": 3, "세": 3, "석": 3, "넷": 4, "네": 4, "넉": 4,
           "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10, "스물": 20, "스무": 20, "서른": 30,
           "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80, "아흔": 90}
# Counters the analyzer tags as common nouns (it tags 명, 건, 개, 원, 번 … as bound nouns, NNB, already)
_NOUN_COUNTERS = frozenset({"곳", "차례", "가지", "군데", "개국", "개소", "과목", "학급", "노선", "정거장", "종류",
                            "권", "편", "채", "회", "석", "표", "분", "주", "개월", "시간"})


@dataclass(frozen=True)
class Numeral:
    start: int  # character offsets in the text
    end: int
    value: Decimal
    sino: bool = False  # written with Sino-Korean magnitudes or digits (7억 1,480만, 백육십육), not native words


def _magnitudes(form: str) -> list[int] | None:
    """천만 → [1000, 10000]; 백 → [100]; None when the form is not made of magnitude words."""
    out = []
    for ch in form:
        if ch in _SMALL:
            out.append(_SMALL[ch])
        elif ch in _LARGE:
            out.append(_LARGE[ch])
        else:
            return None
    return out


def _native(form: str) -> int | None:
    """스물다섯 → 25, 열 → 10, 아홉 → 9: at most one tens word, then at most one units word (두세 is a range)."""
    tens = next((w for w in _NATIVE if _NATIVE[w] >= 10 and form.startswith(w)), None)  # none is another's prefix
    rest = form[len(tens):] if tens else form
    units = _NATIVE.get(rest) if rest else 0
    if units is None or units >= 10 or (tens is None and not rest):
        return None
    return (_NATIVE[tens] if tens else 0) + units


def _digits(form: str) -> Decimal | None:
    try:
        return Decimal(form.replace(",", ""))
    except InvalidOperation:
        return None


class _Sino:
    """Sums a run of digits and magnitude words the way Korean groups them: below 만 a chunk of 천/백/십
    parts (7천5백 = 7500), each 만/억/조 multiplying the chunk before it (2천5백만 = 25,000,000)."""

    def __init__(self) -> None:
        self.total = Decimal(0)
        self.chunk = Decimal(0)
        self.pending: Decimal | None = None

    def digits(self, value: Decimal) -> bool:
        if self.pending is not None:
            return False  # two digit groups in a row: two numbers
        self.pending = value
        return True

    def magnitude(self, sizes: list[int]) -> None:
        for size in sizes:
            if size in _SMALL.values():
                self.chunk += (self.pending if self.pending is not None else 1) * size
            else:
                base = self.chunk + (self.pending or 0)
                self.total += (base if base else 1) * size
                self.chunk = Decimal(0)
            self.pending = None

    def value(self) -> Decimal:
        return self.total + self.chunk + (self.pending or 0)


def spelled_numerals(text: str) -> list[Numeral]:
    """Every number the text says with Korean magnitude words or native numerals, in order (digits alone are
    not listed: a digit reader reads those)."""
    tokens = kiwi().tokenize(text)
    found: list[Numeral] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.tag == "SN" or (token.tag == "NR" and (_magnitudes(token.form) or token.form in _SINO_DIGITS)):
            run = _Sino()
            j, worded = i, False
            while j < len(tokens):
                t = tokens[j]
                if j > i and t.start > tokens[j - 1].start + tokens[j - 1].len + 1:
                    break  # more than one space apart
                sizes = _magnitudes(t.form) if t.tag == "NR" else None
                if t.tag == "SN" and (value := _digits(t.form)) is not None and run.digits(value):
                    j += 1
                elif t.tag == "NR" and t.form in _SINO_DIGITS and run.digits(Decimal(_SINO_DIGITS[t.form])):
                    worded, j = True, j + 1  # 백육십육: digits spelled in Sino-Korean
                elif sizes is not None:
                    run.magnitude(sizes)
                    worded, j = True, j + 1
                else:
                    break
            if worded:
                found.append(Numeral(token.start, tokens[j - 1].start + tokens[j - 1].len, run.value(), sino=True))
            i = max(j, i + 1)
            continue
        if token.tag in ("NR", "MM"):
            j, word = i, ""
            while j < len(tokens) and tokens[j].tag in ("NR", "MM") and (
                    j == i or tokens[j].start == tokens[j - 1].start + tokens[j - 1].len):  # 열한 is one word
                word += tokens[j].form
                j += 1
            total = _native(word)
            if total is not None and j < len(tokens) and _counts(tokens, j):
                found.append(Numeral(token.start, tokens[j - 1].start + tokens[j - 1].len, Decimal(total)))
            i = max(j, i + 1)
            continue
        i += 1
    return found


def _counts(tokens: list, j: int) -> bool:
    """A counter follows at j, and not as an ordinal (세 번째)."""
    counter = tokens[j]
    if not (counter.tag == "NNB" or (counter.tag == "NNG" and counter.form in _NOUN_COUNTERS)):
        return False
    after = tokens[j + 1] if j + 1 < len(tokens) else None
    return not (after is not None and after.tag == "XSN" and after.form == "째")


def with_digits(text: str) -> str:
    """`text` with each spelled number written as plain digits (7천5백 원 → 7500 원, 아홉 명 → 9 명)."""
    return digits_and_spans(text)[0]


def digits_and_spans(text: str) -> tuple[str, list[Numeral]]:
    """`with_digits`'s text, and each rewritten number as it stands there (its span in the new text)."""
    out: list[str] = []
    placed: list[Numeral] = []
    last = at = 0
    for numeral in spelled_numerals(text):
        before = text[last:numeral.start]
        digits = format(numeral.value.normalize(), "f")
        out += [before, digits]
        at += len(before)
        placed.append(Numeral(at, at + len(digits), numeral.value, numeral.sino))
        at += len(digits)
        last = numeral.end
    out.append(text[last:])
    return "".join(out), placed
