"""Which of verl's tool-call parsers reads the calls a model writes (`multi_turn.format`).

A model family writes tool calls one way: Qwen2.5 and Qwen3 a JSON object inside <tool_call> tags (verl's
`hermes`), Qwen3.5 and Qwen3-Coder XML (`<function=NAME><parameter=P>…`, verl's `qwen3_coder`), gpt-oss
harmony channels. A parser that does not match the model reads no call at all — every rollout then ends
at its first turn, with nothing to learn from — so the launch chooses the parser from the model's name,
and refuses a model whose family is not listed rather than guess (tests/test_rl_verl.py runs verl's own
parser of every family on a call in that family's documented format).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kopa.errors import UserError


@dataclass(frozen=True)
class Family:
    name: str  # as people name it
    pattern: str  # on the model's name: its last path part, lowercase (Qwen/Qwen3.5-4B → qwen3.5-4b)
    parser: str  # verl's multi_turn.format
    writes: str  # what one of its tool calls looks like


_QWEN_XML = "<tool_call><function=NAME><parameter=P>VALUE</parameter></function></tool_call>"
_HERMES = '<tool_call>{"name": NAME, "arguments": {…}}</tool_call>'
# first match wins: the more specific name before the family it extends (Qwen3.5 and Qwen3-Coder before Qwen3)
FAMILIES: tuple[Family, ...] = (
    Family("Qwen3.5", r"qwen3\.5", "qwen3_coder", _QWEN_XML),
    Family("Qwen3-Coder", r"qwen3-coder", "qwen3_coder", _QWEN_XML),
    Family("Qwen3", r"qwen3(-|$)", "hermes", _HERMES),
    Family("Qwen2.5", r"qwen2\.5", "hermes", _HERMES),
    Family("QwQ", r"qwq", "hermes", _HERMES),
    Family("gpt-oss", r"gpt-oss", "gpt-oss",
           "<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>"),
    Family("GLM-4.5 and later", r"glm-4\.[5-9]", "glm",
           "<tool_call>NAME<arg_key>P</arg_key><arg_value>VALUE</arg_value></tool_call>"),
    Family("Seed-OSS", r"seed-oss", "seed",
           "<seed:tool_call><function=NAME><parameter=P>VALUE</parameter></function></seed:tool_call>"),
    Family("MiniMax-M2", r"minimax-m2", "minimax",
           '<minimax:tool_call><invoke name="NAME"><parameter name="P">VALUE</parameter></invoke></minimax:tool_call>'),
    Family("Kimi-K2", r"kimi-k2", "kimi",
           "<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}"
           "<|tool_call_end|><|tool_calls_section_end|>"),
    Family("DeepSeek-V4", r"deepseek-v4", "deepseek_v4",
           '<｜DSML｜tool_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="P" string="true">VALUE'
           "</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜tool_calls>"),
    Family("Gemma 4", r"gemma-?4", "gemma4", '<|tool_call>call:NAME{P:<|"|>VALUE<|"|>}<tool_call|>'),
)


class UnknownModelFamily(UserError, ValueError):
    """A model no listed family matches: its tool-call format is not known."""


def family_of(model: str) -> Family:
    """The family of `model` (a hub id or a local path: its last part is matched)."""
    name = model.rstrip("/").rsplit("/", 1)[-1].lower()
    for family in FAMILIES:
        if re.match(family.pattern, name):
            return family
    parsers = ", ".join(dict.fromkeys(f.parser for f in FAMILIES))
    raise UnknownModelFamily(f"{model}: kopa does not know which tool-call format this model writes (known: "
                             f"{', '.join(f.name for f in FAMILIES)}); name verl's parser yourself "
                             f"(FORMAT=… for benchmark/rl/grpo_kopa.sh: {parsers})")


def tool_call_format(model: str) -> str:
    """verl's `multi_turn.format` for `model`."""
    return family_of(model).parser
