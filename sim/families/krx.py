"""Family D — KRX Open API: `/svc/apis/{category}/{api_id}[.json]`, header `AUTH_KEY`, `basDd`,
`{"OutBlock_1": [...]}`; errors are real HTTP statuses with `{respMsg, respCode}`.

Unconfirmed in the reference and chosen here: a missing or malformed `basDd` answers HTTP 400
`{"respMsg":"Bad Request","respCode":"400"}`; a holiday answers `{"OutBlock_1": []}`; the key is also
accepted as an `AUTH_KEY` query parameter when no header carries it, as third-party clients
(pykrx-openapi) and community examples send it that way against the real gateway.
"""

from __future__ import annotations

from sim.endpoints import SimError
from sim.families.common import json_response
from sim.http import SimRequest, SimResponse


class KrxFamily:
    # Unconfirmed (platforms.md §12: no quota answer seen): the gateway throttles with a real HTTP 429,
    # a `Retry-After` header and its usual `{respMsg, respCode}` body; maintenance is HTTP 503.
    RETRY_AFTER = 1

    def render_fault(self, kind: str, req: SimRequest, sim) -> SimResponse:
        if kind == "rate_limit":
            return json_response({"respMsg": "Too Many Requests", "respCode": "429"}, 429,
                                 {"Retry-After": str(self.RETRY_AFTER)})
        return json_response({"respMsg": "Service Unavailable", "respCode": "503"}, 503)

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None:
        """`/svc/apis/sto/stk_bydd_trd.json` → `sto/stk_bydd_trd`."""
        path = req.path.removesuffix(".json")
        return path[len("/svc/apis/") :] if path.startswith("/svc/apis/") else None

    def handle(self, req: SimRequest, sim) -> SimResponse:
        key = self.endpoint_key(req)
        if key is None:
            return json_response({"respMsg": "Not Found", "respCode": "404"}, 404)
        endpoint = sim.endpoint(req.host, key)
        if endpoint is None:
            return json_response({"respMsg": "Not Found", "respCode": "404"}, 404)
        key = req.headers.get("auth_key") or req.arg("AUTH_KEY")
        if sim.keys.check("krx", key) != "ok":
            return json_response({"respMsg": "Unauthorized API Call", "respCode": "401"}, 401)
        args = {k: v for k, v in req.query if k != "AUTH_KEY"}
        try:
            idx = sim.select(endpoint, args)
        except SimError as err:
            if err.kind in ("missing_param", "bad_param"):
                return json_response({"respMsg": "Bad Request", "respCode": "400"}, 400)
            raise
        return json_response({"OutBlock_1": sim.rows(endpoint, idx, text=True)})
