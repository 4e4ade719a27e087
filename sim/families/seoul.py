"""Family A′ — 서울 열린데이터광장 (openapi.seoul.go.kr:8088).

Path-positional requests `/{KEY}/{TYPE}/{SERVICE}/{START_INDEX}/{END_INDEX}/{opt1}/{opt2}/…`, a 1-based
inclusive row window of at most 1,000 rows, the `{SVC:{list_total_count, RESULT, row}}` envelope and a
top-level `{RESULT:{CODE, MESSAGE}}` for every error and for "no data" — all with HTTP 200.

An endpoint lists its positional filters in `options["positional"]` (the order of the service spec)
and may answer under another root (`options["root"]`: bikeList answers as rentBikeStatus).
"""

from __future__ import annotations

from urllib.parse import unquote

from sim.endpoints import SimError
from sim.families.common import json_response, wire_int, xml_response
from sim.http import SimRequest, SimResponse

MESSAGES = {
    "INFO-000": "정상 처리되었습니다",
    "INFO-100": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 열린 데이터 광장 홈페이지에서 인증키를 신청하십시오.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-301": "파일타입 값이 누락 혹은 유효하지 않습니다. 요청인자 중 TYPE을 확인하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오",
    "ERROR-331": "요청시작위치 값을 확인하십시오. 요청인자 중 START_INDEX를 확인하십시오.",
    "ERROR-332": "요청종료위치 값을 확인하십시오. 요청인자 중 END_INDEX를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-334": "요청종료위치 보다 요청시작위치가 더 큽니다. 요청시작조회건수는 정수를 입력하세요.",
    "ERROR-335": "샘플데이터(샘플키:sample) 는 한번에 최대 5건을 넘을 수 없습니다. 요청시작위치와 요청종료위치 값은 1 ~ 5 사이만 가능합니다.",
    "ERROR-336": "데이터요청은 한번에 최대 1000건을 넘을 수 없습니다. 요청종료위치에서 요청시작위치를 뺀 값이 1000을 넘지 않도록 수정하세요.",
    # Unconfirmed for Seoul: the sibling OpenAPI 포털 engine answers its daily quota with ERROR-337.
    "ERROR-337": "일별 트래픽 제한을 넘은 호출입니다. 오늘은 더이상 호출할 수 없습니다.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-601": "SQL 문장 오류 입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
}

# SimError kind → code. The portal does no format check of filter values (unconfirmed, but no code in
# its table says "bad value"): a malformed filter simply matches nothing, so it answers INFO-200.
# Maintenance has no documented code; ERROR-500 is what a closed service most plausibly answers.
_KIND_TO_CODE = {
    "missing_param": "ERROR-300",
    "bad_param": "INFO-200",
    "no_data": "INFO-200",
    "unknown_service": "ERROR-310",
    "rate_limit": "ERROR-337",
    "maintenance": "ERROR-500",
    "server_error": "ERROR-500",
}
TYPES = ("json", "xml", "xmlf", "xls")
MAX_WINDOW = 1000
SAMPLE_KEY = "sample"
SAMPLE_WINDOW = 5


class SeoulFamily:
    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """ERROR-337 (unconfirmed for Seoul, see MESSAGES) / ERROR-500, in the TYPE path segment's format."""
        segments = [unquote(s).strip() for s in req.path.strip("/").split("/")]
        render = "json" if len(segments) > 1 and segments[1].lower() == "json" else "xml"
        return _error(_KIND_TO_CODE[kind], render)

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/{KEY}/json/TbCampngPlcLcnsInfo/1/5/…` → `TbCampngPlcLcnsInfo` (the third path segment)."""
        segments = [unquote(s).strip() for s in req.path.strip("/").split("/")]
        return segments[2] or None if len(segments) > 2 else None

    def handle(self, req: SimRequest, sim) -> SimResponse:
        segments = [unquote(s).strip() for s in req.path.strip("/").split("/")]
        segments += [""] * max(0, 5 - len(segments))
        key, fmt, _service, start_text, end_text = segments[:5]  # the service: endpoint_key
        filters = segments[5:]
        fmt = fmt.lower()
        render = "json" if fmt == "json" else "xml"
        status = sim.keys.check("seoul", key, sample_key=SAMPLE_KEY)
        if status in ("missing", "invalid"):
            return _error("INFO-100", render)
        if fmt not in TYPES:
            return _error("ERROR-301", "xml")
        endpoint = sim.endpoint(req.host, self.endpoint_key(req) or "")
        if endpoint is None:
            return _error("ERROR-310", render)
        window = _window(start_text, end_text, sample=status == "sample")
        if isinstance(window, str):
            return _error(window, render)
        names = endpoint.options.get("positional", ())
        args = {name: value for name, value in zip(names, filters, strict=False) if value}
        try:
            return _answer(sim, endpoint, args, window, render)
        except SimError as err:
            return _error(_KIND_TO_CODE[err.kind], render)


def _window(start_text: str, end_text: str, *, sample: bool) -> tuple[int, int] | str:
    """The row window, or the code of what is wrong with it (checked in the service's order)."""
    if start_text == "":
        return "ERROR-331"
    if end_text == "":
        return "ERROR-332"
    start, end = wire_int(start_text), wire_int(end_text)
    if start is None or end is None:
        return "ERROR-333"
    if start < 1:
        return "ERROR-331"
    if end < 1:
        return "ERROR-332"
    if start > end:
        return "ERROR-334"
    if sample and end - start + 1 > SAMPLE_WINDOW:
        return "ERROR-335"
    if end - start + 1 > MAX_WINDOW:
        return "ERROR-336"
    return start, end


def _answer(sim, endpoint, args: dict[str, str], window: tuple[int, int], render: str) -> SimResponse:
    idx = sim.select(endpoint, args)
    total = len(idx)
    start, end = window
    if total == 0 or start > total:
        raise SimError("no_data")
    rows = sim.rows(endpoint, idx[start - 1 : end])
    root = endpoint.options.get("root", endpoint.key)
    body = {"list_total_count": total, "RESULT": {"CODE": "INFO-000", "MESSAGE": MESSAGES["INFO-000"]}, "row": rows}
    if render == "xml":
        return xml_response(root, body)
    return json_response({root: body})


def _error(code: str, render: str) -> SimResponse:
    result = {"CODE": code, "MESSAGE": MESSAGES[code]}
    if render == "xml":
        return xml_response("RESULT", result)
    return json_response({"RESULT": result})
