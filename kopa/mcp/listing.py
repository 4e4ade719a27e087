"""What a kopa MCP server lists: the catalog's tools of its platforms, as MCP tool definitions, and the
two episode tools of its own.

A catalog tool is listed as a model is shown it in-process (kopa.catalog.schema.openai_schema): the same
input JSON schema, the Korean title and description. MCP carries the title apart, so
:func:`openai_tool` puts ``[title] description`` back together and a tool listed over MCP gives the
OpenAI schema the in-process policy builds, byte for byte. The output schema documents the records'
fields with their Korean descriptions; it names no types, since a service's values are not checked.

The session platform's tools (keys, today's date, the calculator, the watchlist) are part of every
server: a platform's tools need a key issued in the same episode, and the episode lives in one server.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import mcp_types as types

from kopa.catalog.formats import describe
from kopa.catalog.loader import Catalog
from kopa.catalog.models import Tool
from kopa.tools.results import ToolError

SESSION_PLATFORM = "session"
RESET_EPISODE = "reset_episode"
GET_EPISODE_STATE = "get_episode_state"
EPISODE_TOOLS = (RESET_EPISODE, GET_EPISODE_STATE)


def platforms_served(catalog: Catalog, platforms: Sequence[str]) -> list[str]:
    """The platforms a server for ``platforms`` serves (all of the catalog's when none is named), the
    session platform always among them; an unknown name is a ValueError naming the valid ones."""
    known = list(catalog.platforms)
    unknown = sorted(set(platforms) - set(known))
    if unknown:
        raise ValueError(f"unknown platform(s) {unknown}; one of {sorted(known)}")
    chosen = set(platforms) or set(known)
    return [p for p in known if p in chosen or p == SESSION_PLATFORM]


def catalog_tools(catalog: Catalog, platforms: Iterable[str], *, names: Sequence[str] = (),
                  domains: Sequence[str] = ()) -> list[Tool]:
    """The catalog's tools of ``platforms``, in the catalog's order: with ``names``, exactly those (a host
    holds 40 or 128 tools; a platform has up to 848); with ``domains``, the tools of those domains and the
    session tools their calls need. An unknown name or domain is a ValueError that names the valid ones."""
    unknown = sorted(set(names) - {tool.name for tool in catalog})
    if unknown:
        raise ValueError(f"unknown tool(s) {unknown}; `kopa tools list` lists them")
    known_domains = sorted({tool.domain for tool in catalog if tool.domain})
    if set(domains) - set(known_domains):
        raise ValueError(f"unknown domain(s) {sorted(set(domains) - set(known_domains))}; one of {known_domains}")
    wanted = set(platforms)
    return [tool for tool in catalog if tool.platform in wanted
            and (not names or tool.name in names)
            and (not domains or tool.domain in domains or tool.platform == SESSION_PLATFORM)]


def key_platforms(catalog: Catalog, asked: Sequence[str]) -> list[str]:
    """The platforms ``--issue-keys`` names (``all``: every platform issue_api_key knows), checked."""
    known = [p for p in (catalog["issue_api_key"].spec.params[0].enum or [])]
    chosen = known if list(asked) == ["all"] else list(asked)
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise ValueError(f"unknown platform(s) {unknown}; one of {known} or all")
    return sorted(set(chosen))


def _output_schema(tool: Tool) -> dict[str, Any]:
    fields = {field.name: {"description": _field_text(field.description, field.format)}
              for field in tool.spec.output}
    return {
        "type": "object",
        "properties": {
            "total_count": {"type": ["integer", "null"], "description": "서비스가 알려 준 전체 건수"},
            "records": {"type": "array", "description": "이 페이지의 레코드",
                        "items": {"type": "object", "properties": fields}},
            "page": {"type": "object", "description": "페이지 정보 (페이지가 있는 서비스만)"},
            "truncated": {"type": "string", "description": "응답이 잘렸을 때: 표시한 건수와 나머지를 읽는 방법"},
            "error": {"type": "object", "description": "호출이 실패했을 때: 오류 분류, 종류, 서비스의 코드와 메시지",
                      "properties": {name: {"type": "string"} for name in ToolError.model_fields},
                      "required": list(ToolError.model_fields)},
        },
        # a result holds records, or (isError) the typed error: both conform, so a client that checks every
        # result against the schema (the TypeScript SDK) shows the service's own message, not -32602
        "anyOf": [{"required": ["records"]}, {"required": ["error"]}],
    }


def _field_text(description: str, fmt: str | None) -> str:
    text = describe(fmt)
    return f"{description} ({text})" if text and text not in description else description


def mcp_tool(tool: Tool) -> types.Tool:
    """One catalog tool as an MCP tool definition."""
    function = tool.openai_schema()["function"]
    return types.Tool(name=tool.name, title=tool.spec.title, description=tool.spec.description,
                      input_schema=function["parameters"], output_schema=_output_schema(tool),
                      annotations=types.ToolAnnotations(title=tool.spec.title, read_only_hint=_read_only(tool),
                                                        open_world_hint=tool.platform != SESSION_PLATFORM))


def _read_only(tool: Tool) -> bool:
    # Only the watchlist's add/remove and key issuance change the episode; every service call only reads.
    return tool.name not in ("add_watchlist_item", "remove_watchlist_item", "issue_api_key")


def episode_tools() -> list[types.Tool]:
    """reset_episode and get_episode_state: kopa's own tools, for harnesses that score the end state."""
    state_schema = {
        "type": "object",
        "properties": {"episode": {"type": "string"}, "state_hash": {"type": "string"}, "state": {"type": "object"}},
        "required": ["episode", "state_hash", "state"],
    }
    reset_input = {
        "type": "object",
        "properties": {"current_date": {
            "type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$",
            "description": "새 에피소드의 '오늘' 날짜 (YYYY-MM-DD). 생략하면 백엔드의 날짜"}},
        "required": [],
        "additionalProperties": False,
    }
    return [
        types.Tool(name=RESET_EPISODE, title="에피소드 초기화",
                   description="새 에피소드를 시작합니다: 발급된 키, 관심목록 같은 상태, 호출 기록을 모두 비웁니다. "
                               "요청 _meta의 'kopa/episode'가 있으면 그 에피소드를 초기화합니다.",
                   input_schema=reset_input, output_schema=state_schema,
                   annotations=types.ToolAnnotations(destructive_hint=True, open_world_hint=False)),
        types.Tool(name=GET_EPISODE_STATE, title="에피소드 상태 조회",
                   description="현재 에피소드의 상태(발급된 키 체계, 오늘 날짜, 상태가 있는 도구의 데이터)와 "
                               "그 SHA-256 해시를 돌려줍니다.",
                   input_schema={"type": "object", "properties": {}, "required": [], "additionalProperties": False},
                   output_schema=state_schema,
                   annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False)),
    ]


def openai_tool(tool: types.Tool) -> dict[str, Any]:
    """The OpenAI function schema of a listed MCP tool: what kopa's in-process policy shows a model."""
    description = f"[{tool.title}] {tool.description}" if tool.title else (tool.description or "")
    return {"type": "function",
            "function": {"name": tool.name, "description": description, "parameters": tool.input_schema}}
