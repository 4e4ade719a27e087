"""A string answer written as a sentence (지역구는 부산 해운대구을입니다, …은 2024년 7월 9일 소관위원회에
회부됐습니다): where the target stands in it and whether the sentence claims it, so prose is read as a reader
reads it instead of being left to a judge.

The target is found in the answer as the offline judge reads it (`kopa.eval.judge.read_answer`: normalised
sentence by sentence and line by line, `find_form` at token boundaries, so dates, clocks and company forms are
read alike), each place read for polarity in its own sentence on the Korean analyzer (`kopa.korean.claims`). The answer claims the target when some place of it is affirmed and none
is one item of a list of candidates (동방화재해상보험, 진양화재해상보험), and it states no wrong form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kopa.eval.judge import AnswerReading, find_form, read_answer
from kopa.korean.claims import Polarity, analysed
from kopa.korean.text import normalise_text

# Another candidate beside a target written as it is: after it a list separator (or a joining 와/과/및,
# which may also sit inside one name: 목적 및 정의), before it a separator that follows a word, not a clause
_SEPARATED_AFTER = re.compile(r"^(?:이|가|은|는)?\s*(?:[,、/·]|또는|혹은)\s*[^\s(（]")
_JOINED_AFTER = re.compile(r"^(?:\s*및|와|과|이랑|랑|하고)\s+[^\s(（]")
_SEPARATED_BEFORE = re.compile(r"(?P<word>\S+?)\s*(?:[,、/·]|또는|혹은)\s*$")
_JOINED_BEFORE = re.compile(r"\S\s*(?:및)\s*$")


@dataclass(frozen=True)
class Placement:
    """How an answer holds its target: the polarity of each place it is stated, and whether one of them is
    an item among other candidates."""

    polarities: tuple[Polarity, ...]
    listed: bool  # beside another candidate: 동방화재해상보험, 진양화재해상보험
    joined: bool = False  # joined to another word by 와/과/및: two candidates, or one name (목적 및 정의)

    @property
    def claimed(self) -> bool:
        return "affirmed" in self.polarities and not self.listed and not self.joined


def placement(answer: str, forms: list[str]) -> Placement | None:
    """Where `answer` states one of `forms` (the target, its aliases and item forms); None where it states
    none of them as a word of its own (청룡집본점 is another name, 청룡집입니다 states it)."""
    reading = read_answer(answer)
    normal_forms = [f for f in dict.fromkeys(normalise_text(f) for f in forms) if f]
    found = [reading.polarity(span) for form in normal_forms for span in find_form(reading.text, form)
             if _ends_word(reading, span)]
    if not found:
        return None
    return Placement(polarities=tuple(found), listed=any(_beside(answer, form, joined=False) for form in forms),
                     joined=any(_beside(answer, form, joined=True) for form in forms))


def _ends_word(reading: AnswerReading, span: tuple[int, int]) -> bool:
    """The word holding `span` goes on after it with nothing, particles, a copula, endings or 하다 (반대가,
    반대일, 반대했습니다), as the analyzer reads its sentence (a lone 가 would be the verb 가다)."""
    first, last = reading.segment(span[0])
    sentence = reading.text[first:last]
    end = span[1] - first
    word_end = sentence.find(" ", end)
    word_end = len(sentence) if word_end == -1 else word_end
    if end == word_end:
        return True
    tokens = analysed(sentence)
    if any(t.start < end < t.start + t.len for t in tokens):
        return False  # a token runs across the form's end: 청룡집본점 is one name
    return all(t.tag[0] in "JE" or t.tag in ("VCP", "XSV", "XSA") for t in tokens if end <= t.start < word_end)


def _beside(answer: str, form: str, *, joined: bool) -> bool:
    """`form`, as written in the answer, stands beside another candidate: separated by a comma, a slash or
    또는 (`joined` False), or joined by 와/과/및 (`joined` True)."""
    after, before = (_JOINED_AFTER, _JOINED_BEFORE) if joined else (_SEPARATED_AFTER, _SEPARATED_BEFORE)
    for match in re.finditer(re.escape(form), answer, re.IGNORECASE):
        if after.match(answer[match.end():]):
            return True
        ahead = before.search(answer[:match.start()])
        if ahead is not None and (joined or not _clause_end(ahead["word"])):
            return True
    return False


def _clause_end(word: str) -> bool:
    """A word that ends a clause or a phrase with a particle (7호선으로, 가운데) is no list item."""
    tokens = analysed(word)
    return bool(tokens) and tokens[-1].tag[0] in "JE"
