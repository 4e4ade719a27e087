"""PublicDataReader's 서울 열린데이터광장 reader (requests + BeautifulSoup XML), unmodified, against the
served simulator. (Its data.go.kr readers cover MOLIT/NTS/SEMAS services the simulator does not serve.)"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.clients
pytest.importorskip("lxml")  # BeautifulSoup's "lxml-xml" parser, which the reader needs
PublicDataReader = pytest.importorskip("PublicDataReader")

KEY = "0123456789abcdef0123456789abcdef"  # a well-formed 32-hex Seoul key
DAY = "20260125"


def test_subway_ridership_pages_until_info_200(route_requests, runtime):
    # The reader asks 1/1000, 1001/2000, … and stops at the first RESULT code other than INFO-000.
    df = PublicDataReader.Transportation(KEY).read_data("지하철승하차", USE_DT=DAY)
    tool = runtime.call("get_seoul_subway_ridership", {"USE_DT": DAY})
    assert tool.ok and len(df) == tool.total_count > 0
    first = df.iloc[0]
    want = tool.records[0]
    assert (first["사용일자"], first["호선명"], first["역명"]) == (want["USE_DT"], want["LINE_NUM"], want["SUB_STA_NM"])
    assert first["승차총승객수"] == str(want["RIDE_PASGR_NUM"])


def test_ridership_ten_years_back_beside_the_latest_day(route_requests, runtime):
    # The card data runs from 2015; the latest day is published three days late (2026-01-27 for today
    # 2026-01-30), so yesterday answers no data yet, as the live portal does.
    reader = PublicDataReader.Transportation(KEY)
    old, new = reader.read_data("지하철승하차", USE_DT="20160127"), reader.read_data("지하철승하차", USE_DT="20260127")
    assert len(old) == len(new) > 0
    assert set(old["사용일자"]) == {"20160127"} and set(new["사용일자"]) == {"20260127"}
    assert list(old["역명"]) == list(new["역명"])
    assert list(old["승차총승객수"]) != list(new["승차총승객수"])
    tool = runtime.call("get_seoul_subway_ridership", {"USE_DT": "20160127"})
    assert old.iloc[0]["승차총승객수"] == str(tool.records[0]["RIDE_PASGR_NUM"])
    assert reader.read_data("지하철승하차", USE_DT="20260129").empty


def test_bus_ridership(route_requests, runtime):
    # 2,688 stops in a day: three pages of 1,000 for the reader.
    df = PublicDataReader.Transportation(KEY).read_data("버스승하차", USE_DT="20260127")
    tool = runtime.call("get_seoul_bus_ridership", {"USE_DT": "20260127"})
    assert tool.ok and len(df) == tool.total_count > 0
    assert df.iloc[0]["노선번호"] == tool.records[0]["BUS_ROUTE_NO"]


def test_no_data_and_invalid_key_give_an_empty_frame(route_requests):
    # INFO-200 (no data) and INFO-100 (인증키가 유효하지 않습니다) both end the loop with no rows.
    assert PublicDataReader.Transportation(KEY).read_data("지하철승하차", USE_DT="19990101").empty
    assert PublicDataReader.Transportation("invalid").read_data("지하철승하차", USE_DT=DAY).empty
