"""Family C — OpenDART: `/api/{name}.json|.xml`, key `crtfc_key`, flat `{status, message, …}`.

Every application error is HTTP 200 with a status code; `corpCode.xml` answers a zip of
CORPCODE.xml, or the XML `<result>` when it fails.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np

from sim.endpoints import SimError
from sim.families.common import flat_response, parse_int, to_xml, total_pages
from sim.http import SimRequest, SimResponse

MESSAGES = {
    "000": "정상",
    "010": "등록되지 않은 키입니다.",
    "011": "사용할 수 없는 키입니다. 오픈API에 등록되었으나, 일시적으로 사용 중지된 키를 통하여 검색하는 경우 발생합니다.",
    "013": "조회된 데이타가 없습니다.",
    "021": "조회 가능한 회사 개수가 초과하였습니다.(최대 100건)",
    "020": "요청 제한을 초과하였습니다. 일반적으로는 20,000건 이상의 요청에 대하여 이 에러 메시지가 발생되나, 요청 제한이 다르게 설정된 경우에는 이에 준하여 발생됩니다.",
    "100": "필드의 부적절한 값입니다. 필드 설명에 없는 값을 사용한 경우에 발생하는 메시지입니다.",
    "101": "부적절한 접근입니다.",
    "800": "시스템 점검으로 인한 서비스가 중지 중입니다.",
    "900": "정의되지 않은 오류가 발생하였습니다.",
}
_KIND_TO_STATUS = {
    "missing_param": "100",
    "bad_param": "100",
    "page_size": "100",
    "too_many": "021",
    "no_data": "013",
    "unknown_service": "101",
    "rate_limit": "020",
    "maintenance": "800",
    "server_error": "900",
}


class DartFamily:
    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/api/list.json` → `list`."""
        if not req.path.startswith("/api/") or "." not in req.path:
            return None
        return req.path[len("/api/") :].rpartition(".")[0]

    def handle(self, req: SimRequest, sim) -> SimResponse:
        name = self.endpoint_key(req)
        if name is None:
            return _error("101", "json")
        ext = req.path.rpartition(".")[2]
        fmt = "xml" if ext == "xml" else "json"
        endpoint = sim.endpoint(req.host, name)
        if endpoint is None or ext not in ("json", "xml"):
            return _error("101", fmt)
        status = sim.keys.check("dart", req.arg("crtfc_key"))
        if status != "ok":
            return _error("010", fmt)
        args = dict(req.query)
        try:
            if endpoint.options.get("zip"):
                return _zip_answer(sim, endpoint)
            return self._answer(sim, endpoint, args, fmt)
        except SimError as err:
            return _error(_KIND_TO_STATUS[err.kind], fmt)

    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        """Rate limit 020 / maintenance 800: HTTP 200, JSON or XML per the path's extension."""
        fmt = "xml" if req.path.endswith(".xml") else "json"
        return _error(_KIND_TO_STATUS[kind], fmt)

    def _answer(self, sim, endpoint, args, fmt) -> SimResponse:
        idx = sim.select(endpoint, args)
        if len(idx) == 0:
            raise SimError("no_data")
        if endpoint.options.get("shape") == "object":
            row = sim.rows(endpoint, idx[:1], text=True)[0]
            return _ok({**row}, fmt)
        if endpoint.options.get("paged"):
            page = parse_int(args.get("page_no"), 1)
            size = parse_int(args.get("page_count"), 10)
            if page is None or size is None or page < 1 or not 1 <= size <= 100:
                raise SimError("bad_param", "page_no/page_count")
            total = len(idx)
            pages = total_pages(total, size)
            if page > pages:
                raise SimError("no_data", "page past the end")
            rows = sim.rows(endpoint, idx[(page - 1) * size : page * size], text=True)
            return _ok(
                {"page_no": page, "page_count": size, "total_count": total, "total_page": pages, "list": rows},
                fmt,
            )
        return _ok({"list": sim.rows(endpoint, idx, text=True)}, fmt)


def _ok(fields: dict, fmt: str) -> SimResponse:
    return flat_response(fmt, "result", {"status": "000", "message": MESSAGES["000"], **fields})


def _error(status: str, fmt: str) -> SimResponse:
    return flat_response(fmt, "result", {"status": status, "message": MESSAGES[status]})


def _zip_answer(sim, endpoint) -> SimResponse:
    table = sim.world.table(endpoint.table)

    rows = table.rows(np.arange(table.n_rows), endpoint.fields, text=True)
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + to_xml("result", {"list": rows})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        # A fixed timestamp keeps the archive byte-identical across runs.
        info = zipfile.ZipInfo("CORPCODE.xml", date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, xml.encode("utf-8"))
    return SimResponse(
        200,
        buf.getvalue(),
        "application/x-msdownload",
        {"Content-Disposition": "attachment; filename=CORPCODE.zip"},
    )
