"""Each envelope family declares how it pages, and the catalog agrees: every paging parameter a tool
documents is one its family's Paging names; a tool's largest page is its documented maximum where it has
one, else its family's."""

from __future__ import annotations

from kopa.catalog import load_catalog
from kopa.wire.paging import default_page_size, is_paged, max_page_size, page_args, paging_of

CATALOG = load_catalog()


def test_every_documented_paging_parameter_is_its_familys():
    for tool in CATALOG:
        names = {p.name for p in tool.spec.params if p.paging}
        if not names:
            continue
        paging = paging_of(tool.family)
        assert paging is not None, (tool.name, tool.family)
        assert names <= {paging.number, paging.size, *(paging.window or ())}, (tool.name, names)


def test_a_documented_maximum_is_tighter_than_the_familys():
    qnet = CATALOG["search_qnet_exam_schedules"]
    assert next(p.maximum for p in qnet.spec.params if p.name == "numOfRows") == 50
    assert max_page_size(qnet) == 50
    stock = CATALOG["get_stock_price_trend"]
    assert max_page_size(stock) == paging_of(stock.family).max_size == 1000
    assert max_page_size(CATALOG["search_dart_disclosures"]) == 100


def test_page_arguments_by_family():
    assert page_args("dart", 3, 100) == {"page_no": 3, "page_count": 100}
    assert page_args("seoul", 2, 1000) == {"START_INDEX": 1001, "END_INDEX": 2000}
    assert not is_paged("krx") and default_page_size("portal") == 100
