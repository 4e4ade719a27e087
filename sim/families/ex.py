"""Family E — 한국도로공사 (data.ex.co.kr): `/openapi/{group}/{operation}`, query `key`, `type`,
`numOfRows`, `pageNo`; `{code, message, count, pageNo, numOfRows, pageSize, list}` with HTTP 200.

`pageSize` is the number of pages, not the page length. The row array is `list` unless the endpoint
names it (`options["records_key"]`: trafficIc, realUnitTrtmVO).

Error code strings are unconfirmed (platforms.md §1/§12). Only the bad-key message is observed; the
codes below follow the one public client that names them (INVALID_KEY, INVALID_PARAMETER_VALUE,
EXCEEDED_LIMIT, SYSTEM_ERROR). A filter that matches nothing is answered as SUCCESS with count 0 and
an empty list (also unconfirmed, but the success message is about the key, not the data), and so is a
page past the end.
"""

from __future__ import annotations

from sim.endpoints import SimError
from sim.families.common import flat_response, parse_int, stringify, total_pages
from sim.http import SimRequest, SimResponse

OK_MESSAGE = "인증키가 유효합니다."
MESSAGES = {
    "INVALID_KEY": "인증키가 유효하지 않습니다.",
    "INVALID_PARAMETER_VALUE": "요청 파라미터 값이 유효하지 않습니다.",
    "MISSING_PARAMETER": "필수 요청 파라미터가 누락되었습니다.",
    "EXCEEDED_LIMIT": "일일 요청 한도를 초과하였습니다.",
    "SYSTEM_ERROR": "시스템 오류가 발생하였습니다.",
}
_KIND_TO_CODE = {
    "missing_param": "MISSING_PARAMETER",
    "bad_param": "INVALID_PARAMETER_VALUE",
    "page_size": "INVALID_PARAMETER_VALUE",
    "rate_limit": "EXCEEDED_LIMIT",
    "maintenance": "SYSTEM_ERROR",
    "server_error": "SYSTEM_ERROR",
}
SAMPLE_KEY = "test"  # observed to work on some operations; accepted on all here
DEFAULT_ROWS = 10
MAX_ROWS = 1000  # unconfirmed; clients use 99–100, some operations return everything in one call
NOT_FOUND = b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"


class ExFamily:
    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """EXCEEDED_LIMIT / SYSTEM_ERROR (unconfirmed codes, see the module docstring), per `type`."""
        fmt = "json" if (req.arg("type") or "").lower() == "json" else "xml"
        return _error(_KIND_TO_CODE[kind], fmt)

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/openapi/trafficapi/trafficIc` → `trafficapi/trafficIc`."""
        prefix = "/openapi/"
        return req.path[len(prefix):].rstrip("/") if req.path.startswith(prefix) else None

    def handle(self, req: SimRequest, sim) -> SimResponse:
        key = self.endpoint_key(req)
        endpoint = sim.endpoint(req.host, key) if key is not None else None
        if endpoint is None:
            return SimResponse(404, NOT_FOUND, "text/html;charset=UTF-8")
        fmt = "json" if (req.arg("type") or "").lower() == "json" else "xml"
        if sim.keys.check("ex", req.arg("key"), sample_key=SAMPLE_KEY) in ("missing", "invalid"):
            return _error("INVALID_KEY", fmt)
        # The service trims values: unitCode often arrives as "101 " copied from its own answers.
        args = {k: v.strip() for k, v in req.query}
        try:
            return _answer(sim, endpoint, args, fmt)
        except SimError as err:
            if err.kind == "no_data":
                return _ok(fmt, endpoint, [], 0, 1, DEFAULT_ROWS)
            return _error(_KIND_TO_CODE[err.kind], fmt)


def _answer(sim, endpoint, args: dict[str, str], fmt: str) -> SimResponse:
    page = parse_int(args.get("pageNo"), 1)
    size = parse_int(args.get("numOfRows"), DEFAULT_ROWS)
    if page is None or size is None or page < 1 or size < 1:
        raise SimError("bad_param", "pageNo/numOfRows")
    if size > (endpoint.max_page_size or MAX_ROWS):
        raise SimError("page_size", str(size))
    idx = sim.select(endpoint, args)
    rows = stringify(sim.rows(endpoint, idx[(page - 1) * size : page * size]))
    return _ok(fmt, endpoint, rows, len(idx), page, size)


def _ok(fmt: str, endpoint, rows: list[dict], total: int, page: int, size: int) -> SimResponse:
    key = endpoint.options.get("records_key", "list")
    body = {"code": "SUCCESS", "message": OK_MESSAGE, "count": total, "pageNo": page, "numOfRows": size,
            "pageSize": total_pages(total, size) if total else 0, key: rows}
    return flat_response(fmt, "data", body)


def _error(code: str, fmt: str) -> SimResponse:
    return flat_response(fmt, "data", {"code": code, "message": MESSAGES[code]})
