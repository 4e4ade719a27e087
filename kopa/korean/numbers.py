"""Numbers as a Korean reader writes them, and how the end of one is read aloud."""

from __future__ import annotations

import re

_SINO = "영일이삼사오육칠팔구"
_SMALL_PLACES = {1: "십", 2: "백", 3: "천"}
_LARGE_PLACES = ("만", "억", "조", "경")
_TRAILING_NUMBER = re.compile(r"(\d[\d,]*(?:\.\d+)?)$")
_ACRONYM = re.compile(r"(?<![A-Za-z])[A-Z]{1,3}$")  # KB, LG, 1WR — not NAVER, iPhone: words kiwipiepy reads
# the last syllable of each Latin letter's Korean name (에이, 비, 씨, … 엘, 엠, 엔, 알 …): 1WR is read 알
_LETTER_ENDING = dict(zip("abcdefghijklmnopqrstuvwxyz", "이비씨디이프지치이이이엘엠엔오피큐알스티유이유스이드", strict=True))


def number_phrase(text: str) -> str:
    """A number as a Korean reader writes it: '6000' → '6,000', '940000' → '94만', '12600000' → '1,260만'
    (a round number of 만 is said in 만), '470000000' → '4억 7,000만', '2340000000000' → '2조 3,400억'; any
    other number below 1억 with its commas ('36672' → '36,672'); a decimal as it is."""
    if not re.fullmatch(r"-?\d+", text):
        return text
    n = int(text)
    if 10_000 <= abs(n) < 100_000_000 and n % 10_000 == 0:
        return f"{n // 10_000:,}만"
    if abs(n) < 100_000_000:
        return f"{n:,}"
    sign, n = ("-" if n < 0 else ""), abs(n)
    parts = []
    for unit, size in (("조", 10**12), ("억", 10**8), ("만", 10**4)):
        if n >= size:
            parts.append(f"{n // size:,}{unit}")
            n %= size
    if n:
        parts.append(f"{n:,}")
    return sign + " ".join(parts)


def spoken_ending(text: str) -> str:
    """`text` with a number at its end replaced by the last syllable it is read with (Sino-Korean): '3' →
    '삼', '20' → '십', '1,500' → '백', '120000' → '만', '3.5' → '오'; an acronym's last letter by its
    name ('1WR' → '1W알'); other text unchanged. A particle agrees with how the end is read ('3이', '20이',
    '1,500이', '1WR을'), which the spelling does not show."""
    if _ACRONYM.search(text):  # an acronym is read letter by letter: its last letter's name ends it
        return text[:-1] + _LETTER_ENDING[text[-1].lower()]
    found = _TRAILING_NUMBER.search(text)
    if found is None:
        return text
    number = found.group(1).replace(",", "")
    if "." in number:
        syllable = _SINO[int(number[-1])]
    else:
        digits = number.lstrip("0") or "0"
        zeros = len(digits) - len(digits.rstrip("0"))
        if digits == "0" or zeros == 0:
            syllable = _SINO[int(digits[-1])]
        elif zeros < 4:
            syllable = _SMALL_PLACES[zeros]
        else:
            syllable = _LARGE_PLACES[min(zeros // 4, len(_LARGE_PLACES)) - 1]
    return text[: found.start()] + syllable
