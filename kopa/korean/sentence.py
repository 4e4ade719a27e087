"""A question template filled: `<name>` is a slot's phrase, `<name.part>` one of its parts, and a particle
after a colon agrees with what is filled in (`<company:은>` → "삼성전자는", "KB금융은").

The templates are hand-written Korean (EDGE Phase B's intents); what fills them is data (a company's name,
a date, a threshold with its unit), so the particle after each is decided here, by the analyzer, never
written into the template.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kopa.korean.particles import particle

# a slot is named in ASCII; a part may be a service's own field name, Korean ones included (<law.법령명한글>)
PLACEHOLDER = re.compile(r"<(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\.(?P<part>[A-Za-z0-9_가-힣]+))?"
                         r"(?::(?P<particle>[가-힣]+))?>")


class SentenceError(ValueError):
    """A template that names a slot or part that is not there."""


def fill(template: str, slots: Mapping[str, Mapping[str, str]]) -> str:
    """`template` with every placeholder replaced: a slot's `say` (or the part named), then its particle."""
    def one(match: re.Match[str]) -> str:
        name, part = match["name"], match["part"] or "say"
        try:
            text = slots[name][part]
        except KeyError:
            raise SentenceError(f"{template!r}: no slot {name}.{part}") from None
        return text + (particle(text, match["particle"]) if match["particle"] else "")

    return PLACEHOLDER.sub(one, template)


def placeholders(template: str) -> list[tuple[str, str]]:
    """(slot, part) of every placeholder, in order ('say' where no part is named)."""
    return [(m["name"], m["part"] or "say") for m in PLACEHOLDER.finditer(template)]
