"""Family H — 학교알리미 `openApi.do`: `apiKey`, `apiType`, `pbanYr`, region and 학교급 codes; no paging.

Success: `{"resultCode":"success","resultMsg":"…","list":[…]}`. The error resultCode values are not
documented anywhere we could read (unconfirmed); this simulator answers a non-"success" code of the
form `E0nn` with a Korean message, HTTP 200, which is what the service's other failure modes suggest:
- E001 인증키 오류 (missing or invalid apiKey)
- E002 필수 요청변수 누락
- E003 요청변수 값 오류 (unknown apiType, malformed code)
- E004 공시연도 범위 밖 (only the last three 공시연도 are served)
- E005 일일 호출 한도 초과, E999 시스템 오류
A query that matches nothing is a success with an empty list (the service runs the query and
returns what it found; plausible, unconfirmed).
"""

from __future__ import annotations

from sim.endpoints import SimError
from sim.families.common import json_response
from sim.http import SimRequest, SimResponse

MESSAGES = {
    "success": "정상 처리되었습니다.",
    "E001": "인증키가 유효하지 않습니다.",
    "E002": "필수 요청변수가 누락되었습니다.",
    "E003": "요청변수 값이 올바르지 않습니다.",
    "E004": "공시연도는 최근 3개년만 조회할 수 있습니다.",
    "E005": "일일 호출 한도를 초과하였습니다.",
    "E999": "시스템 오류가 발생하였습니다.",
}
_KIND_TO_CODE = {
    "missing_param": "E002",
    "bad_param": "E003",
    "unknown_service": "E003",
    "page_size": "E003",
    "bad_window": "E003",
    "no_data": "E003",
    "rate_limit": "E005",
    "maintenance": "E999",
    "server_error": "E999",
}


class SchoolInfoFamily:
    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """E005 daily quota / E999 (unconfirmed codes, see the module docstring); JSON is the only format."""
        return _result(_KIND_TO_CODE[kind])

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/openApi.do?apiType=0` → `openApi.do?apiType=0` (the apiType names the endpoint)."""
        api_type = req.arg("apiType")
        if req.path.rstrip("/") != "/openApi.do" or not api_type:
            return None
        return f"openApi.do?apiType={api_type}"

    def handle(self, req: SimRequest, sim) -> SimResponse:
        if req.path.rstrip("/") != "/openApi.do":
            return SimResponse(404, b"Not Found", "text/html")
        if sim.keys.check("schoolinfo", req.arg("apiKey")) != "ok":
            return _result("E001")
        api_type = req.arg("apiType")
        if not api_type:
            return _result("E002")
        endpoint = sim.endpoint(req.host, self.endpoint_key(req) or "")
        if endpoint is None:
            return _result("E003")
        args = dict(req.query)
        try:
            idx = sim.select(endpoint, args)
            year = args.get("pbanYr")
            recent = int(endpoint.options.get("recent_years", 3))
            if year and not sim.today.year - recent <= int(year) <= sim.today.year - 1:
                return _result("E004")
            rows = sim.rows(endpoint, idx)
        except SimError as err:
            return _result(_KIND_TO_CODE[err.kind])
        # Every value as a string (unconfirmed; the portal's other JSON APIs quote numbers too).
        return json_response({"resultCode": "success", "resultMsg": MESSAGES["success"],
                              "list": [{k: str(v) for k, v in r.items()} for r in rows]})


def _result(code: str) -> SimResponse:
    return json_response({"resultCode": code, "resultMsg": MESSAGES[code]})
