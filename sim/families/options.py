"""Each envelope family's endpoint options, as a typed model: the names a family's code reads, their types
and defaults. `Endpoint.options` stays a plain mapping on the hot path (families read it per request);
`validate_options` checks an endpoint against its family's model — an unknown name (a typo would otherwise
be silently ignored) or a value of the wrong type is refused, naming the endpoint and the closest name.
`tests/test_endpoint_options.py` runs it over every endpoint, the long tail included, and checks that
every option name a family's code reads is a field of its model.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sim.endpoints import Endpoint


class _Options(BaseModel):
    """Options every family's endpoints may take (read by the simulator itself, sim/app.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    omit_empty: tuple[str, ...] = ()  # fields left out of a record where empty (DART's 누적금액 in an annual report)


class DartOptions(_Options):
    max_items: int | None = None  # a comma list parameter's cap (fnlttMultiAcnt: 100 corp_codes)
    paged: bool = False  # page_no / page_count apply (list.json)
    shape: Literal["list", "object"] = "list"  # `object`: one record as the top-level object (company.json)
    zip: bool = False  # the answer is a ZIP file (corpCode.xml, document.xml)


class DatagokrOptions(_Options):
    default_format: Literal["xml", "json"] | None = None  # what the service answers without a format param
    format_param: str | None = None  # the parameter naming the format (_type, resultType, dataType, type)
    ok_code: str | None = None  # the success resultCode ("00" or "0000" by provider)
    ok_msg: str | None = None  # the success resultMsg ("NORMAL SERVICE." / "NORMAL_CODE" …)
    page_size_code: str | None = None  # the code of a page size over the limit
    numeric_fields: tuple[str, ...] = ()  # output fields a JSON answer gives as numbers (coordinates, counts)
    one_row_object: bool = True  # a lone <item> becomes an object in XML→JSON conversion


class ExOptions(_Options):
    records_key: str = "list"  # the array the records come in (trafficIc, realUnitTrtmVO …)


class HrdOptions(_Options):
    all_values: dict[str, str] = {}  # parameter → the value meaning "all" (srchTraArea1=00 …)
    max_page_size: int | None = None
    multi: tuple[str, ...] = ()  # parameters that take a comma list
    paged: bool = False
    section: str | None = None  # the XML section the records are under
    sort_cols: dict[str, str] = {}  # sort parameter value → column
    wrapped: bool = False  # the records are wrapped in an HRDNet envelope element
    xml_encoding: str | None = None


class LawOptions(_Options):
    kind: Literal["search", "service"]  # a 목록 search (lawSearch.do) or a 본문 document (lawService.do)
    article_fields: tuple[str, ...] = ()
    articles: str | None = None  # the table of a body's articles
    body: str | None = None  # the root element of a body document
    fields: tuple[str, ...] = ()
    info: dict[str, str] = {}  # wire field → column of a body's 기본정보
    item: str | None = None  # the element each search result is
    no_data: str | None = None  # the message of an empty search
    prefer: tuple[str, ...] = ()  # columns a body lookup tries in order (ID before MST)
    query_column: str | None = None  # the column `query` searches
    ranges: dict[str, str] = {}  # date-range parameter → column
    rename: dict[str, str] = {}  # column → wire field in a body
    root: str | None = None  # the root element of a search answer
    section: str | None = None
    target: str | None = None  # the `target` parameter value (law, prec, admrul …)
    zero_pad: dict[str, int] = {}  # parameter → width it is zero-padded to before matching


class PortalOptions(_Options):
    key_id: str | None = None  # the key system sim.keys checks (defaults by host)
    keyless_sample: bool = False  # no KEY → sample mode (NEIS) instead of ERROR-290
    sample_key: str | None = None  # a KEY value served in sample mode
    sample_rows: int = 5  # the sample mode's row cap
    invalid_keys: tuple[str, ...] = ()  # KEY values answered with ERROR-290
    require_user_agent: bool = False  # no User-Agent → HTTP 400 from the WAF in front
    fold_case: bool = False  # parameter names match case-insensitively (경기데이터드림)
    default_page_size: int = 100
    numeric_fields: tuple[str, ...] = ()  # output fields rendered as JSON numbers
    bad_param_code: str | None = None  # the code of a malformed filter value


class SchoolinfoOptions(_Options):
    key_id: str | None = None
    recent_years: int = 3  # how many 공시 years the service answers


class SeoulOptions(_Options):
    positional: tuple[str, ...] = ()  # the filters that follow the row window in the path, in order
    root: str | None = None  # the envelope's root when it is not the service name (bikeList → rentBikeStatus)


class KrxOptions(_Options):
    """KRX Open API endpoints take no options."""


FAMILY_OPTIONS: dict[str, type[_Options]] = {
    "dart": DartOptions, "datagokr": DatagokrOptions, "ex": ExOptions, "hrd": HrdOptions, "law": LawOptions,
    "portal": PortalOptions, "schoolinfo": SchoolinfoOptions, "seoul": SeoulOptions, "krx": KrxOptions,
}


class EndpointOptionsError(ValueError):
    """An endpoint whose options its family does not know, or of the wrong type."""


def validate_options(endpoint: Endpoint) -> _Options:
    """The endpoint's options as its family's model; EndpointOptionsError in one line otherwise."""
    model = FAMILY_OPTIONS.get(endpoint.family)
    where = f"endpoint {endpoint.host} {endpoint.key}"
    if model is None:
        raise EndpointOptionsError(f"{where}: family {endpoint.family!r} has no options model; "
                                   f"families: {', '.join(sorted(FAMILY_OPTIONS))}")
    known = list(model.model_fields)
    for name in endpoint.options:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise EndpointOptionsError(f"{where}: unknown {endpoint.family} option {name!r}{hint}; "
                                       f"known: {', '.join(known) or 'none'}")
    try:
        return model.model_validate(_plain(endpoint.options))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise EndpointOptionsError(f"{where}: option {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def _plain(options: dict[str, Any]) -> dict[str, Any]:
    """Tuples stay tuples (strict mode would refuse a list for them), mappings become dicts."""
    return {k: dict(v) if isinstance(v, dict) else v for k, v in options.items()}
