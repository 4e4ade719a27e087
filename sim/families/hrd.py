"""Family G — HRD-Net / 고용24 훈련과정: `authKey`, `returnType` XML|JSON, `outType`, `pageNum`, `pageSize`.

JSON success on the legacy host is a JSON string inside JSON (`{"returnJSON": "<json>"}`); 고용24 answers
the same object unwrapped (endpoint option `wrapped`). XML is `<HRDNet>` with `scn_cnt`, `pageNum`,
`pageSize` and `srchList/scn_list`; the legacy host sends it EUC-KR. 상세 answers one section object
(`inst_base_info`) instead of a list.

No error envelope of HRD-Net is documented (platforms.md §7.1, unconfirmed). Chosen here: HTTP 200 with
the usual wrapper around `{"errorCode", "errorMsg"}` (XML `<HRDNet><errorCode/><errorMsg/></HRDNet>`),
codes E00 missing key, E01 invalid key, E10 missing parameter, E11 bad parameter value (including a
pageSize over 100, the largest clients use), E90 daily quota, E98 maintenance, E99 server error. An
empty search is a success with `scn_cnt` 0; a page past the end is a success with an empty `srchList`.
An unknown path is the web server's HTML 404.
"""

from __future__ import annotations

import numpy as np
import orjson

from sim.endpoints import Endpoint, SimError
from sim.families.common import JSON, json_response, parse_int, stringify, to_xml
from sim.http import SimRequest, SimResponse

MESSAGES = {
    "E00": "인증키가 입력되지 않았습니다.",
    "E01": "유효하지 않은 인증키입니다.",
    "E10": "필수 요청변수가 누락되었습니다.",
    "E11": "요청변수 값이 올바르지 않습니다.",
    "E90": "일일 호출 한도를 초과하였습니다.",
    "E98": "시스템 점검 중입니다.",
    "E99": "시스템 오류가 발생하였습니다.",
}
_KIND_TO_CODE = {
    "missing_param": "E10",
    "bad_param": "E11",
    "page_size": "E11",
    "bad_window": "E11",
    "unknown_service": "E11",
    "rate_limit": "E90",
    "maintenance": "E98",
    "server_error": "E99",
}
ROOT = "HRDNet"  # XML root name: unconfirmed (one client reads response.HRDNet.inst_base_info)


class HrdFamily:
    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        return req.path

    def handle(self, req: SimRequest, sim) -> SimResponse:
        endpoint = sim.endpoint(req.host, self.endpoint_key(req))
        if endpoint is None:
            return SimResponse(404, b"<html><body><h1>404 Not Found</h1></body></html>", "text/html;charset=UTF-8")
        fmt = "json" if (req.arg("returnType") or "XML").upper() == "JSON" else "xml"
        status = sim.keys.check("hrd", req.arg("authKey"))
        if status == "missing":
            return _render(endpoint, fmt, _error("E00"))
        if status != "ok":
            return _render(endpoint, fmt, _error("E01"))
        try:
            _check_selectors(req)
            return _render(endpoint, fmt, self._answer(sim, endpoint, dict(req.query)))
        except SimError as err:
            return _render(endpoint, fmt, _error(_KIND_TO_CODE.get(err.kind, "E99")))

    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """E90 daily quota / E98 maintenance (unconfirmed codes), in the endpoint's usual wrapper."""
        endpoint = sim.endpoint(req.host, req.path) or Endpoint("hrd", req.host, req.path, "")
        fmt = "json" if (req.arg("returnType") or "XML").upper() == "JSON" else "xml"
        return _render(endpoint, fmt, _error(_KIND_TO_CODE[kind]))

    def _answer(self, sim, endpoint: Endpoint, args: dict[str, str]) -> dict:
        opts = endpoint.options
        for name, everything in opts.get("all_values", {}).items():
            if args.get(name) == everything:
                del args[name]
        idx = _select(sim, endpoint, args, opts.get("multi", ()))
        if "section" in opts:
            rows = stringify(sim.rows(endpoint, idx[:1]))
            return {opts["section"]: rows[0] if rows else {}}
        if not opts.get("paged"):
            return {"scn_cnt": len(idx), "srchList": stringify(sim.rows(endpoint, idx))}
        page = parse_int(args.get("pageNum"), 1)
        size = parse_int(args.get("pageSize"), 10)
        if page is None or size is None or page < 1 or size < 1:
            raise SimError("bad_param", "pageNum/pageSize")
        if size > opts.get("max_page_size", 100):
            raise SimError("page_size", str(size))
        idx = _sorted(sim, endpoint, idx, args)
        window = idx[(page - 1) * size : page * size]
        return {"scn_cnt": len(idx), "pageNum": page, "pageSize": size,
                "srchList": stringify(sim.rows(endpoint, window))}


def _check_selectors(req: SimRequest) -> None:
    """returnType and outType take fixed values; anything else is a bad parameter."""
    if (req.arg("returnType") or "XML").upper() not in ("XML", "JSON"):
        raise SimError("bad_param", "returnType")
    if (req.arg("outType") or "1") not in ("1", "2"):
        raise SimError("bad_param", "outType")


def _select(sim, endpoint: Endpoint, args: dict[str, str], multi) -> np.ndarray:
    """Rows matching the arguments; a comma list in a multi-valued parameter matches any of its values."""
    for name in multi:
        values = [v for v in (args.get(name) or "").split(",") if v]
        if len(values) > 1:
            hits = [sim.select(endpoint, {**args, name: v}) for v in values]
            return np.unique(np.concatenate(hits))
    return sim.select(endpoint, args)


def _sorted(sim, endpoint: Endpoint, idx: np.ndarray, args: dict[str, str]) -> np.ndarray:
    """`sortCol` picks the column, `sort` ASC|DESC the direction; the default is the table's order
    (훈련시작일 ascending). Vocabulary codes are ordered like the values, so sorting codes sorts values."""
    order = (args.get("sort") or "ASC").upper()
    col_name = args.get("sortCol")
    if order not in ("ASC", "DESC"):
        raise SimError("bad_param", "sort")
    if not col_name and order == "ASC":
        return idx
    column = endpoint.options["sort_cols"].get(col_name or "TRNG_BGDE")
    if column is None:
        raise SimError("bad_param", f"sortCol={col_name}")
    codes = sim.world.table(endpoint.table).cols[column].codes[idx].astype(np.int64)
    return idx[np.argsort(-codes if order == "DESC" else codes, kind="stable")]


def _error(code: str) -> dict:
    return {"errorCode": code, "errorMsg": MESSAGES[code]}


def _render(endpoint: Endpoint, fmt: str, payload: dict) -> SimResponse:
    opts = endpoint.options
    if fmt == "json":
        if opts.get("wrapped", True):
            inner = orjson.dumps(payload).decode("utf-8")
            return SimResponse(200, orjson.dumps({"returnJSON": inner}), JSON)
        return json_response(payload)
    encoding = opts.get("xml_encoding", "utf-8")
    tree = dict(payload)
    if "srchList" in tree:
        tree["srchList"] = {"scn_list": tree["srchList"]} if tree["srchList"] else ""
    text = f'<?xml version="1.0" encoding="{encoding.upper()}"?>' + to_xml(ROOT, tree)
    body = text.encode(encoding, errors="xmlcharrefreplace")
    return SimResponse(200, body, f"text/xml;charset={encoding.upper()}")
