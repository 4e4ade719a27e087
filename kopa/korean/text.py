"""Korean text read for comparison: answer text in one form, so that equal answers compare equal (the
normalisation the RESPONSE scorer and the offline judge share, benchmark/SCORING.md, "String answers"), and
the foreign-script tokens a Korean question must not carry ("전월 대비 人口 증감", "보험상品")."""

from __future__ import annotations

import re
import unicodedata

_COMPAT_JAMO = ("\u3131", "\u318e")  # ㄱ..ㆎ: NFKC would turn them into conjoining jamo
# Equivalent forms accepted by rule, not per task: a URL names its page with or without its scheme and www.
# (blog.naver.com/x is https://blog.naver.com/x); a company is the same company with or without its legal
# form — (주), ㈜ (NFKC makes it (주)), 주식회사 (동방화재해상보험(주) is 동방화재해상보험).
_URL_PREFIX = re.compile(r"(?<![\w.])(?:https?://)?www\.|(?<![\w.])https?://")
_COMPANY_FORM = re.compile(r"\(주\)|주식회사")
# Dates and times, one form each (2024년 7월 9일, 2024.7.9 and 2024-07-09 are 2024-07-09; 5시 32분, 5:32 AM
# and 05:32:00 are 05:32; 오후 5시 is 17:00)
_DATE = re.compile(r"(?<!\d)(?P<y>\d{4})\s*(?:년|[.\-/])\s*(?P<m>\d{1,2})\s*(?:월|[.\-/])\s*(?P<d>\d{1,2})(?!\d)\s*일?")
_CLOCK = re.compile(r"(?P<half>오전|오후)?\s*(?<!\d)(?P<h>\d{1,2}):(?P<min>\d{2})(?::(?P<s>\d{2}))?(?!\d)"
                    r"(?:\s*(?P<ampm>am|pm)\b)?")
_KOREAN_CLOCK = re.compile(r"(?P<half>오전|오후)?\s*(?:(?<![\d가-힣])|(?<=오전)|(?<=오후))(?P<h>\d{1,2})\s*시"
                           r"(?:\s*(?P<min>\d{1,2})\s*분(?:\s*(?P<s>\d{1,2})\s*초)?|(?![가-힣]))")  # not 3시간, 제3시


def _clock(match: re.Match[str]) -> str:
    hour, minute, second = int(match["h"]), int(match["min"] or 0), int(match["s"] or 0)
    afternoon = match["half"] == "오후" or (match.groupdict().get("ampm") == "pm")
    morning = match["half"] == "오전" or (match.groupdict().get("ampm") == "am")
    if afternoon and hour < 12:
        hour += 12
    elif morning and hour == 12:
        hour = 0
    return f" {hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "") + " "


# A province or metropolitan city is the same place by its full or its short name (부산광역시 해운대구을 is
# 부산 해운대구을; 강원도, 강원특별자치도 and 강원 alike)
_SIDO = {"서울특별시": "서울", "부산광역시": "부산", "대구광역시": "대구", "인천광역시": "인천", "광주광역시": "광주",
         "대전광역시": "대전", "울산광역시": "울산", "세종특별자치시": "세종", "경기도": "경기", "강원특별자치도": "강원",
         "강원도": "강원", "충청북도": "충북", "충청남도": "충남", "전북특별자치도": "전북", "전라북도": "전북",
         "전라남도": "전남", "경상북도": "경북", "경상남도": "경남", "제주특별자치도": "제주", "제주도": "제주"}
_SIDO_NAME = re.compile(r"(?<![가-힣])(?:" + "|".join(sorted(_SIDO, key=len, reverse=True)) + ")")
_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MINUS = re.compile(r"(?<![0-9A-Za-z가-힣])[-−–](?=\d)")


def normalise_text(text: str) -> str:
    """NFKC (Hangul kept in NFC, compatibility jamo as written), casefold, a URL's scheme and www. and a
    company's legal form dropped, a province by its short name (부산광역시 → 부산), thousands commas dropped
    (1,522 → 1522), punctuation and symbols → spaces except a decimal point between digits and a leading
    minus sign, whitespace collapsed."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(c if _COMPAT_JAMO[0] <= c <= _COMPAT_JAMO[1] else unicodedata.normalize("NFKC", c)
                   for c in text)
    text = unicodedata.normalize("NFC", text).casefold()
    text = _URL_PREFIX.sub("", text)
    text = _DATE.sub(lambda m: f"{m['y']}-{int(m['m']):02d}-{int(m['d']):02d}", text)
    text = _CLOCK.sub(_clock, _KOREAN_CLOCK.sub(_clock, text))
    if (bare := _COMPANY_FORM.sub(" ", text)).strip():  # never to nothing: a target may be "주식회사" itself
        text = bare
    text = _SIDO_NAME.sub(lambda m: _SIDO[m.group()], text)
    text = _THOUSANDS_COMMA.sub("", text)
    text = _MINUS.sub("\x01", text)
    out = []
    for index, c in enumerate(text):
        if c == "." and 0 < index < len(text) - 1 and text[index - 1].isdigit() and text[index + 1].isdigit():
            out.append(c)
        elif c == "\x01":
            out.append("-")
        else:
            out.append(" " if unicodedata.category(c)[0] in ("P", "S") else c)
    return " ".join("".join(out).split())


# Han characters and kana inside Korean text: a query or a name that mixes scripts ("人口", "상品"), which the
# paper's Stage 1 drops as malformed
_FOREIGN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uf900-\ufaff]+")


def foreign_script(text: str) -> list[str]:
    """The runs of Han or kana characters in `text`, in order (none in a Korean question)."""
    return _FOREIGN.findall(text)
