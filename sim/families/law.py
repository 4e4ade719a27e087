"""Family F — 국가법령정보센터 DRF (www.law.go.kr/DRF/lawSearch.do | lawService.do).

Key `OC`, `target` picks the list or body, `type=JSON|XML` (XML when absent), `display`/`page`.
Everything answers HTTP 200 with a Korean-keyed body: `{LawSearch:{totalCnt,page,law:[…]}}` for lists,
`{법령:{기본정보,조문:{조문단위:[…]}}}` for a law's body, `{result, msg}` for a user-verification failure.
As an XML→JSON service, a lone element arrives as an object where a list is expected.

Unconfirmed behaviours, chosen as the most plausible (platforms.md §8/§12):
- display default 20; a display over 100 is served as 100; a non-numeric page/display as the default.
- no data in a list = `totalCnt` "0" with no item key; a page past the end likewise has no item key.
- a malformed filter value in a list (a date range that is not `YYYYMMDD~YYYYMMDD`, nw not 1–3) finds
  nothing (`totalCnt` 0) rather than an error: the service has no documented bad-parameter answer.
- a body for an unknown or malformed MST/ID, or without MST/ID, = `{"Law":"일치하는 법령이 없습니다. …"}`
  (per target: 판례/행정규칙/법령해석례); a JO that the law lacks = the body without `조문`.
- an unknown target = `{result:"미신청된 목록/본문에 대한 접근입니다.", msg:…}` (the portal's message for an
  API the account did not apply for); an OC failure in XML is `<Law><result/><msg/></Law>`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson

from sim.endpoints import Endpoint, SimError, conditions
from sim.families.common import flat_response, json_response, parse_int, stringify, total_pages, xml_response
from sim.http import SimRequest, SimResponse
from sim.world.table import Cond

AUTH_RESULT = "사용자 정보 검증에 실패하였습니다."
AUTH_MSG = "OPEN API 호출 시 사용자 검증을 위하여 정확한 서버장비의 IP주소 및 도메인주소를 등록해 주세요."
UNKNOWN_RESULT = "미신청된 목록/본문에 대한 접근입니다."
UNKNOWN_MSG = "OPEN API 호출 시 목록/본문 API를 신청해 주세요."
DEFAULT_DISPLAY = 20
# Unconfirmed (platforms.md §8: clients self-throttle; no quota answer documented): a quota hit is the
# service's only error form, `{result, msg}` with HTTP 200; maintenance is the web server's HTML 503.
RATE_LIMIT_RESULT = "일일 호출 한도를 초과하였습니다."
RATE_LIMIT_MSG = "OPEN API 호출 한도를 초과하여 요청이 제한되었습니다. 잠시 후 다시 시도해 주세요."
MAINTENANCE_PAGE = ("<html><head><title>서비스 점검 중</title></head><body><h1>503 Service Unavailable</h1>"
                    "<p>시스템 점검으로 인하여 서비스가 일시 중지되었습니다.</p></body></html>")


class LawFamily:
    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        if kind == "rate_limit":
            fmt = "json" if (req.arg("type") or "").upper() == "JSON" else "xml"
            return _message(fmt, RATE_LIMIT_RESULT, RATE_LIMIT_MSG)
        return SimResponse(503, MAINTENANCE_PAGE.encode("utf-8"), "text/html;charset=UTF-8")

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/DRF/lawSearch.do?target=prec` → `lawSearch.do?target=prec` (the target names the endpoint)."""
        path = req.path.rstrip("/")
        service = path.rsplit("/", 1)[-1]
        if not path.startswith("/DRF/") or service not in ("lawSearch.do", "lawService.do"):
            return None
        return f"{service}?target={req.arg('target') or ''}"

    def handle(self, req: SimRequest, sim) -> SimResponse:
        key = self.endpoint_key(req)
        if key is None:
            return SimResponse(404, b"<html><body>404 Not Found</body></html>", "text/html;charset=UTF-8")
        fmt = "json" if (req.arg("type") or "").upper() == "JSON" else "xml"
        if sim.keys.check("law", req.arg("OC")) != "ok":
            return _message(fmt, AUTH_RESULT, AUTH_MSG)
        endpoint = sim.endpoint(req.host, key)
        if endpoint is None:
            return _message(fmt, UNKNOWN_RESULT, UNKNOWN_MSG)
        args = dict(req.query)
        if endpoint.options["kind"] == "search":
            root, body = _search(sim, endpoint, args)
        else:
            root, body = _service(sim, endpoint, args)
        if fmt == "xml":
            return xml_response(root, body)
        return json_response({root: lone_as_object(body)})


def _message(fmt: str, result: str, msg: str) -> SimResponse:
    return flat_response(fmt, "Law", {"result": result, "msg": msg})


def lone_as_object(value: Any) -> Any:
    """What the service's XML→JSON conversion does: a list of one element becomes the element."""
    if isinstance(value, dict):
        return {k: lone_as_object(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [lone_as_object(v) for v in value]
        return items[0] if len(items) == 1 else items
    return value


def _range_conds(endpoint: Endpoint, args: dict[str, str]) -> list[Cond] | None:
    """`YYYYMMDD~YYYYMMDD` filters; None when one is malformed."""
    out: list[Cond] = []
    for param, column in endpoint.options.get("ranges", {}).items():
        value = args.get(param)
        if not value:
            continue
        lo, sep, hi = value.partition("~")
        if not (sep and len(lo) == len(hi) == 8 and lo.isdigit() and hi.isdigit()):
            return None
        out += [Cond(column, "ge", lo), Cond(column, "le", hi)]
    return out


def _search(sim, endpoint: Endpoint, args: dict[str, str]) -> tuple[str, dict]:
    opts = endpoint.options
    page = max(1, parse_int(args.get("page"), 1) or 1)
    size = parse_int(args.get("display"), DEFAULT_DISPLAY) or DEFAULT_DISPLAY
    size = min(max(1, size), endpoint.max_page_size or 100)
    query = args.get("query", "")
    head = {"target": opts["target"], "키워드": query, "section": opts["section"]}
    try:
        conds = conditions(endpoint, args)
    except SimError:
        conds = None
    extra = _range_conds(endpoint, args)
    if conds is None or extra is None:
        return opts["root"], {**head, "totalCnt": "0", "page": str(page)}
    if query:
        conds.append(Cond(opts["query_column"], "contains", query))
    idx = sim.world.table(endpoint.table).select(conds + extra)
    total = len(idx)
    body: dict[str, Any] = {**head, "totalCnt": str(total), "page": str(page)}
    if total and page <= total_pages(total, size):
        rows = stringify(sim.rows(endpoint, idx[(page - 1) * size : page * size]))
        start = (page - 1) * size
        body[opts["item"]] = [{"id": str(start + i + 1), **row} for i, row in enumerate(rows)]
    return opts["root"], body


def _service(sim, endpoint: Endpoint, args: dict[str, str]) -> tuple[str, dict]:
    opts = endpoint.options
    no_data = ("Law", opts["no_data"])
    for param, width in opts.get("zero_pad", {}).items():
        if args.get(param, "").isdigit():
            args[param] = args[param].zfill(width)
    if not any(args.get(p) for p in ("MST", "ID")):
        return no_data
    try:
        idx = sim.world.table(endpoint.table).select(conditions(endpoint, args))
    except SimError:
        return no_data
    if len(idx) == 0:
        return no_data
    table = sim.world.table(endpoint.table)
    prefer = opts.get("prefer")
    if prefer is not None and len(idx) > 1:
        preferred = [i for i in idx.tolist() if table.value(i, prefer[0]) == prefer[1]]
        idx = np.asarray(preferred[:1] or idx[:1].tolist())
    row = table.rows(idx[:1])[0]
    body = opts["body"]
    if body == "flat":
        rename = opts.get("rename", {})
        return opts["root"], {rename.get(k, k): str(row[k]) for k in opts["fields"]}
    if body == "admrul":
        info = {k: str(row[k]) for k in opts["fields"]}
        return opts["root"], {"행정규칙기본정보": info, "조문내용": orjson.loads(row["조문내용"])}
    return opts["root"], _law_body(sim, opts, row, args, single=body == "josub")


def _law_body(sim, opts: dict, row: dict, args: dict[str, str], *, single: bool) -> dict:
    info = {wire: str(row[column]) for wire, column in opts["info"].items()}
    out: dict[str, Any] = {"기본정보": info}
    jo = args.get("JO", "")
    if single and not jo:
        return out
    articles = sim.world.table(opts["articles"])
    conds = [Cond("법령ID", "eq", row["법령ID"])]
    if jo:
        if not (len(jo) == 6 and jo.isdigit()):
            return out
        conds.append(Cond("jo", "eq", jo))
    units = articles.rows(articles.select(conds), opts["article_fields"])
    for unit in units:
        hangs = unit.pop("항")
        if hangs:
            unit["항"] = orjson.loads(hangs)
    if single and units:
        unit = _narrow(units[0], args)
        if unit is None:
            return out
        units = [unit]
    if units:
        out["조문"] = {"조문단위": units}
    return out


def _position(value: str) -> int | None:
    """HANG/HO are 6 digits, number (4) + branch (2): 000200 → 2."""
    return int(value[:4]) if len(value) == 6 and value.isdigit() else None


def _narrow(unit: dict, args: dict[str, str]) -> dict | None:
    """lawjosub: keep only the 항 / 호 / 목 asked for; None when the provision does not exist."""
    hang_arg, ho_arg, mok_arg = args.get("HANG", ""), args.get("HO", ""), args.get("MOK", "")
    if not hang_arg:
        return unit
    hang_no = _position(hang_arg)
    hangs = unit.get("항", [])
    if hang_no is None or not 1 <= hang_no <= len(hangs):
        return None
    hang = dict(hangs[hang_no - 1])
    if ho_arg:
        ho_no = _position(ho_arg)
        hos = hang.get("호", [])
        if ho_no is None or not 1 <= ho_no <= len(hos):
            return None
        ho = dict(hos[ho_no - 1])
        if mok_arg:
            moks = [m for m in ho.get("목", []) if m["목번호"].rstrip(".") == mok_arg]
            if not moks:
                return None
            ho["목"] = moks
        hang["호"] = [ho]
    return {**unit, "항": [hang]}
