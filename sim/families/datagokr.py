"""Family B — 공공데이터포털 gateway (apis.data.go.kr) and providers behind it.

`serviceKey` (or `ServiceKey`), `pageNo`, `numOfRows`, a per-provider format selector; the
`response.header/body` envelope; provider errors inside it; gateway errors (key, quota) as the XML
`OpenAPI_ServiceResponse` even when JSON was asked for — all with HTTP 200.
"""

from __future__ import annotations

from sim.endpoints import SimError
from sim.families.common import json_response, parse_int, stringify, total_pages, xml_response
from sim.http import SimRequest, SimResponse

CODES = {
    "00": "NORMAL SERVICE.",
    "01": "APPLICATION_ERROR",
    "02": "DB_ERROR",
    "03": "NODATA_ERROR",
    "04": "HTTP_ERROR",
    "05": "SERVICETIME_OUT",
    "10": "INVALID_REQUEST_PARAMETER_ERROR",
    "11": "NO_MANDATORY_REQUEST_PARAMETERS_ERROR",
    "12": "NO_OPENAPI_SERVICE_ERROR",
    "20": "SERVICE_ACCESS_DENIED_ERROR",
    "21": "TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR",
    "22": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
    "30": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
    "31": "DEADLINE_HAS_EXPIRED_ERROR",
    "32": "UNREGISTERED_IP_ERROR",
    "33": "UNSIGNED_CALL_ERROR",
    "99": "UNKNOWN_ERROR",
    # Q-Net 시험일정 answers numOfRows > 50 with 930 (observed by a client); the message is unconfirmed.
    "930": "NUM_OF_ROWS_LIMIT_EXCEEDED_ERROR",
}
_KIND_TO_CODE = {
    "missing_param": "11",
    "bad_param": "10",
    "page_size": "10",
    "no_data": "03",
    "server_error": "01",
    "maintenance": "05",
}


def gateway_error(code: str) -> SimResponse:
    """The gateway's own error: XML whatever format was requested."""
    return xml_response(
        "OpenAPI_ServiceResponse",
        {"cmmMsgHeader": {"errMsg": "SERVICE ERROR", "returnAuthMsg": CODES[code], "returnReasonCode": code}},
    )


class DataGoKrFamily:
    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """The gateway path: `/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo`."""
        return req.path.rstrip("/")

    def handle(self, req: SimRequest, sim) -> SimResponse:
        endpoint = sim.endpoint(req.host, self.endpoint_key(req))
        if endpoint is None:
            return gateway_error("12")
        key = req.arg("serviceKey")
        if key is None:
            key = req.arg("ServiceKey")
        if sim.keys.check("data_go_kr", key) != "ok":
            return gateway_error("30")
        opts = endpoint.options
        fmt = _format(req, opts)
        args = dict(req.query)
        try:
            return self._answer(sim, endpoint, args, fmt)
        except SimError as err:
            if err.kind == "rate_limit":
                return gateway_error("22")
            code = opts.get("page_size_code", "10") if err.kind == "page_size" else _KIND_TO_CODE[err.kind]
            return _envelope(fmt, code, opts, None)

    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """Rate limit: the gateway's code 22 in its XML envelope whatever format was asked. Maintenance:
        the provider's 05 SERVICETIME_OUT in the requested format (as `_KIND_TO_CODE` says)."""
        if kind == "rate_limit":
            return gateway_error("22")
        endpoint = sim.endpoint(req.host, req.path.rstrip("/"))
        opts = endpoint.options if endpoint is not None else {}
        return _envelope(_format(req, opts), _KIND_TO_CODE[kind], opts, None)

    def _answer(self, sim, endpoint, args, fmt) -> SimResponse:
        opts = endpoint.options
        page = parse_int(args.get("pageNo"), 1)
        size = parse_int(args.get("numOfRows"), 10)
        if page is None or size is None or page < 1 or size < 1:
            raise SimError("bad_param", "pageNo/numOfRows")
        if endpoint.max_page_size and size > endpoint.max_page_size:
            raise SimError("page_size", str(size))
        idx = sim.select(endpoint, args)
        total = len(idx)
        if total == 0:
            raise SimError("no_data")
        in_range = page <= total_pages(total, size)
        window = idx[(page - 1) * size : page * size]
        numeric = opts.get("numeric_fields", ())
        if not in_range:
            rows = []
        elif numeric and fmt == "json":  # XML has text only; JSON keeps the provider's numbers
            rows = stringify(sim.rows(endpoint, window), numeric)
        else:
            rows = sim.rows(endpoint, window, text=True)
        return _envelope(fmt, "00", opts, {"rows": rows, "pageNo": page, "numOfRows": size, "totalCount": total})


def _format(req: SimRequest, opts: dict) -> str:
    """json or xml, from the provider's format selector (its name and default differ by provider)."""
    fmt = (req.arg(opts.get("format_param", "resultType")) or opts.get("default_format", "xml")).lower()
    return "json" if fmt == "json" else "xml"


def _envelope(fmt: str, code: str, opts: dict, body: dict | None) -> SimResponse:
    header = {"resultCode": opts.get("ok_code", "00") if code == "00" else code,
              "resultMsg": opts.get("ok_msg", CODES["00"]) if code == "00" else CODES[code]}
    if body is None:
        tree = {"header": header}
    else:
        rows = body["rows"]
        if not rows:
            items: object = ""
        elif len(rows) == 1 and opts.get("one_row_object", True):
            items = {"item": rows[0]}  # XML→JSON conversion turns a lone <item> into an object
        else:
            items = {"item": rows}
        tree = {"header": header, "body": {"items": items, "numOfRows": body["numOfRows"],
                                           "pageNo": body["pageNo"], "totalCount": body["totalCount"]}}
    if fmt == "xml":
        return xml_response("response", tree)
    return json_response({"response": tree})
