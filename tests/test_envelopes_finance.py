"""Rendered error envelopes of the DART, KRX and data.go.kr families, byte for byte (syrupy)."""

from __future__ import annotations

import pytest

from sim.http import SimRequest

DART = "opendart.fss.or.kr"
GW = "apis.data.go.kr"
FSC = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"

CASES = {
    "dart_bad_key": ("GET", DART, "/api/company.json", "crtfc_key=invalid&corp_code=00104083", {}),
    "dart_no_key": ("GET", DART, "/api/company.json", "corp_code=00104083", {}),
    "dart_bad_format": ("GET", DART, "/api/company.json", "crtfc_key=k&corp_code=12", {}),
    "dart_unknown_code": ("GET", DART, "/api/company.json", "crtfc_key=k&corp_code=99999999", {}),
    "dart_page_past_end": ("GET", DART, "/api/list.json", "crtfc_key=k&corp_code=00104083&page_no=99", {}),
    "dart_unknown_api": ("GET", DART, "/api/nosuch.json", "crtfc_key=k", {}),
    "dart_xml_error": ("GET", DART, "/api/company.xml", "crtfc_key=invalid&corp_code=00104083", {}),
    "krx_bad_key": ("GET", "data-dbg.krx.co.kr", "/svc/apis/sto/stk_bydd_trd", "basDd=20260129", {}),
    "krx_bad_format": ("GET", "data-dbg.krx.co.kr", "/svc/apis/sto/stk_bydd_trd", "basDd=2026",
                       {"AUTH_KEY": "k"}),
    "krx_holiday": ("GET", "data-dbg.krx.co.kr", "/svc/apis/sto/stk_bydd_trd", "basDd=20260125",
                    {"AUTH_KEY": "k"}),
    "gw_bad_key_json_asked": ("GET", GW, FSC, "serviceKey=invalid&resultType=json", {}),
    "gw_bad_format": ("GET", GW, FSC, "serviceKey=k&resultType=json&basDt=2026-01-29", {}),
    "gw_unknown_code": ("GET", GW, FSC, "serviceKey=k&resultType=json&likeSrtnCd=999999", {}),
    "gw_page_past_end": ("GET", GW, FSC, "serviceKey=k&resultType=json&likeSrtnCd=253160&pageNo=9999", {}),
    "gw_one_row_as_object": ("GET", GW, FSC, "serviceKey=k&resultType=json&likeSrtnCd=253160&basDt=20260129", {}),
    "gw_xml_no_data": ("GET", GW, FSC, "serviceKey=k&likeSrtnCd=999999", {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rendered_envelope(simulator, snapshot, case):
    method, host, path, query, headers = CASES[case]
    response = simulator.handle(SimRequest.from_parts(method, host, path, query, headers))
    assert f"HTTP {response.status} {response.content_type}\n{response.body.decode('utf-8')}" == snapshot
