"""Family A — the head/row "OpenAPI 포털" engine: NEIS, 열린국회정보, 경기데이터드림.

Request: `https://{host}/{prefix}/{SERVICE}?KEY=…&Type=json&pIndex=1&pSize=100&{filters}`. The prefix
differs by portal (`/hub/`, `/portal/openapi/`, none), so the endpoint is found by the last path
segment alone and any prefix is accepted.

Success: `{SVC:[{head:[{list_total_count:N},{RESULT:{CODE:"INFO-000",…}}]},{row:[…]}]}`;
every error (no data included) is the top-level `{RESULT:{CODE,MESSAGE}}`, HTTP 200. `Type` defaults
to xml, and errors follow the requested type.

Row values are rendered as strings (the engine's JSON writer quotes every column), except the
fields an endpoint lists in `options["numeric_fields"]`, which keep their integer value.

Per-endpoint `options` (all optional):
- `key_id`: key system for `sim.keys.check`; defaults by host (neis, assembly, gg).
- `keyless_sample`: a request without KEY is served in sample mode (NEIS) instead of ERROR-290.
- `sample_key`: a KEY value served in sample mode. `sample_rows`: sample-mode row cap (default 5).
- `invalid_keys`: KEY values answered with ERROR-290 (열린국회정보 rejects `KEY=sample`).
- `require_user_agent`: no `User-Agent` header → HTTP 400 plain `Bad Request.` from the WAF in front.
- `fold_case`: parameter names match case-insensitively (경기데이터드림).
- `default_page_size` (default 100 — neispy's default; the official default is unconfirmed).
- `numeric_fields`: output fields rendered as JSON numbers.
- `bad_param_code`: the code for a malformed filter value (default INFO-200, see `_KIND_TO_CODE`).
"""

from __future__ import annotations

from sim.endpoints import Endpoint, SimError
from sim.families.common import json_response, parse_int, stringify, xml_response
from sim.http import SimRequest, SimResponse

MESSAGES = {
    "INFO-000": "정상 처리되었습니다.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "INFO-300": "관리자에 의해 인증키 사용이 제한되었습니다.",
    "ERROR-290": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-336": "데이터요청은 한번에 최대 1,000건을 넘을 수 없습니다.",
    "ERROR-337": "일별 트래픽 제한을 넘은 호출입니다. 오늘은 더이상 호출할 수 없습니다.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
    "ERROR-601": "SQL 문장 오류 입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
}

# A malformed filter value (a 6-digit SD_SCHUL_CODE, say) is not validated by the engine: it goes into
# the WHERE clause and matches nothing, so the answer is INFO-200 (plausible; unconfirmed). Page
# arithmetic is validated: non-integers or values < 1 → ERROR-333, pSize over the cap → ERROR-336.
_KIND_TO_CODE = {
    "missing_param": "ERROR-300",
    "bad_param": "INFO-200",
    "bad_window": "ERROR-333",
    "page_size": "ERROR-336",
    "no_data": "INFO-200",
    "unknown_service": "ERROR-310",
    "rate_limit": "ERROR-337",
    "maintenance": "ERROR-500",
    "server_error": "ERROR-500",
}

_PAGING = ("KEY", "Type", "pIndex", "pSize")


class PortalFamily:
    """One instance per Simulator, so the host-option cache below belongs to that simulator."""

    def __init__(self) -> None:
        self._host_opts: dict[str, dict] = {}

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/hub/mealServiceDietInfo` → `mealServiceDietInfo` (the service name, the path's last segment)."""
        return req.path.rstrip("/").rpartition("/")[2] or None

    def handle(self, req: SimRequest, sim) -> SimResponse:
        if req.host not in self._host_opts:
            self._host_opts[req.host] = _host_options(sim, req.host)
        host_opts = self._host_opts[req.host]
        if host_opts.get("require_user_agent") and not req.headers.get("user-agent"):
            # The WAF in front of the portal answers before the API does.
            return SimResponse(400, b"Bad Request.", "text/plain")
        fold = bool(host_opts.get("fold_case"))
        # The format selector is read case-insensitively on every portal host: neispy, the widely used NEIS
        # client, sends `type=json` and parses the live hub's answer as JSON (other names fold only where
        # `fold_case` says so).
        fmt = "json" if (req.arg("Type", fold_case=True) or "").lower() == "json" else "xml"
        service = self.endpoint_key(req)
        endpoint = sim.endpoint(req.host, service) if service else None
        if endpoint is None:
            return _error("ERROR-310", fmt)
        opts = endpoint.options
        mode = _key_mode(sim, req, endpoint, fold)
        if mode == "invalid":
            return _error("ERROR-290", fmt)
        try:
            return self._answer(sim, endpoint, _args(req, endpoint, fold), fmt, sample=mode == "sample")
        except SimError as err:
            code = _KIND_TO_CODE[err.kind]
            if err.kind == "bad_param":
                code = opts.get("bad_param_code", code)
            return _error(code, fmt)

    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """Rate limit ERROR-337, maintenance ERROR-500: the top-level RESULT in the requested Type."""
        fmt = "json" if (req.arg("Type", fold_case=True) or "").lower() == "json" else "xml"
        return _error(_KIND_TO_CODE[kind], fmt)

    def _answer(self, sim, endpoint: Endpoint, args: dict[str, str], fmt: str, *,
                sample: bool) -> SimResponse:
        opts = endpoint.options
        page = parse_int(args.get("pIndex"), 1)
        size = parse_int(args.get("pSize"), int(opts.get("default_page_size", 100)))
        if page is None or size is None or page < 1 or size < 1:
            raise SimError("bad_window", "pIndex/pSize")
        if size > (endpoint.max_page_size or 1000):
            raise SimError("page_size", str(size))
        if sample:
            size = min(size, int(opts.get("sample_rows", 5)))
        idx = sim.select(endpoint, args)
        total = len(idx)
        window = idx[(page - 1) * size : page * size]
        if len(window) == 0:
            # Past the last page the engine's paged query returns nothing and it says so with INFO-200,
            # exactly as for an empty result (plausible; unconfirmed).
            raise SimError("no_data")
        rows = stringify(sim.rows(endpoint, window), opts.get("numeric_fields", ()))
        return _success(endpoint.key, total, rows, fmt)


def _host_options(sim, host: str) -> dict:
    """Host-wide options (WAF, case folding) come from any endpoint of the host: the WAF and the
    parameter parser sit in front of every service, unknown ones included."""
    merged: dict = {}
    for (ep_host, _), ep in sim.endpoints.items():
        if ep_host == host and ep.family == "portal":
            for name in ("require_user_agent", "fold_case"):
                if ep.options.get(name):
                    merged[name] = True
    return merged


def _key_mode(sim, req: SimRequest, endpoint: Endpoint, fold: bool) -> str:
    """ok | sample | invalid, from the KEY parameter and the endpoint's key options."""
    opts = endpoint.options
    key = req.arg("KEY", fold_case=fold)
    if key is not None and key in tuple(opts.get("invalid_keys", ())):
        return "invalid"
    # the keys know which key system each portal host checks: a family imports nothing above sim.families
    key_id = opts.get("key_id") or sim.keys.portal_key_system(endpoint.host)
    status = sim.keys.check(key_id, key, sample_key=opts.get("sample_key"))
    if status == "missing":
        return "sample" if opts.get("keyless_sample") else "invalid"
    return status


def _args(req: SimRequest, endpoint: Endpoint, fold: bool) -> dict[str, str]:
    """Query arguments under their canonical names (case folded where the portal folds them)."""
    names = [*_PAGING, *endpoint.binds, *endpoint.required]
    args: dict[str, str] = {}
    for name in names:
        value = req.arg(name, fold_case=fold)
        if value is not None:
            args[name] = value
    return args


def _success(service: str, total: int, rows: list[dict], fmt: str) -> SimResponse:
    result = {"CODE": "INFO-000", "MESSAGE": MESSAGES["INFO-000"]}
    if fmt == "xml":
        return xml_response(service, {"head": {"list_total_count": total, "RESULT": result}, "row": rows})
    head = [{"list_total_count": total}, {"RESULT": result}]
    return json_response({service: [{"head": head}, {"row": rows}]})


def _error(code: str, fmt: str) -> SimResponse:
    result = {"CODE": code, "MESSAGE": MESSAGES[code]}
    if fmt == "xml":
        return xml_response("RESULT", result)
    return json_response({"RESULT": result})
