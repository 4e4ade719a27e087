"""Particles that agree with the word before them: 은/는, 이/가, 을/를, 과/와, (으)로, and the rest.

Which form a particle takes depends on how the word ends when read aloud: a final consonant or not, and
for (으)로 whether it is ㄹ. The analyzer decides it (kiwipiepy's `Kiwi.join` joins a noun and a particle
as Korean spelling does), so loanwords and letters come out as they are read ("KB가", "SK에너지가",
"Y는"); a number at the end is first replaced by the syllable it is read with ("3이", "20이", "1,500이"),
which digits do not show.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kopa.korean.analyzer import kiwi
from kopa.korean.numbers import spoken_ending

# closing quotes, brackets of a quotation and spaces are not read: "'부결'이", "「도로법」은"
_UNREAD_TAIL = re.compile(r"[\s'\"’”」』]+$")
# a particle after a parenthesis agrees with the word before it, as Korean spelling has it: "노포휴게소(부산
# 방향)와", "'보안 엔지니어'(11월 3일 개강)는"
_PAREN_TAIL = re.compile(r"\s*\([^()]*\)$")
_PERCENT_TAIL = re.compile(r"%p?$")


@lru_cache(maxsize=65536)
def _ending(word: str) -> tuple[bool, bool]:
    """(read with a final consonant, that consonant is ㄹ) for the last syllable `word` is read with."""
    text = _UNREAD_TAIL.sub("", _PAREN_TAIL.sub("", word) or word)
    text = _PERCENT_TAIL.sub(lambda m: "퍼센트포인트" if m.group(0) == "%p" else "퍼센트", text)
    text = spoken_ending(text)
    if not text:
        return False, False
    analyzer = kiwi()
    subject = analyzer.join([(text, "NNP"), ("이", "JKS")])
    final = not subject.endswith("가")
    towards = analyzer.join([(text, "NNP"), ("으로", "JKB")])
    return final, final and not towards.endswith("으로")


def ends_in_consonant(word: str) -> bool:
    return _ending(word)[0]


# each particle by its two forms (after a consonant / after a vowel); a pair is named by either form
PAIRS = {"은": ("은", "는"), "이": ("이", "가"), "을": ("을", "를"), "과": ("과", "와"), "으로": ("으로", "로"),
         "이나": ("이나", "나"), "이랑": ("이랑", "랑"), "이라는": ("이라는", "라는"), "이라고": ("이라고", "라고"),
         "이고": ("이고", "고"), "이며": ("이며", "며"), "이에요": ("이에요", "예요"), "아": ("아", "야"),
         "이든": ("이든", "든"), "이면": ("이면", "면")}
_BY_FORM = {form: pair for pair in PAIRS.values() for form in pair}


def particle(word: str, name: str) -> str:
    """The form of particle `name` (either of its forms: '은' or '는', '와' or '과') that follows `word`."""
    try:
        with_final, without = _BY_FORM[name]
    except KeyError:
        raise ValueError(f"unknown particle {name!r}; known: {', '.join(sorted(_BY_FORM))}") from None
    final, rieul = _ending(word)
    if with_final == "으로":
        return "로" if not final or rieul else "으로"
    return with_final if final else without


def josa(word: str, pair: str) -> str:
    """`word` with the particle of `pair` ('이/가', '을/를', '은/는', '과/와', '으로/로', or one form: '은')
    in the form its ending takes."""
    return word + particle(word, pair.split("/")[0])
