"""The generated long tail of dataset APIs (spec in `sim.longtail`): tables and endpoints.

One wide table per envelope family holds every dataset of that family, a `DS_KEY` column telling the
datasets apart; each endpoint selects its own rows with a fixed condition and shows only its own
columns. A table per dataset would cost a DuckDB CREATE TABLE each (~2,300 of them) and blow the build
budget; sharing rows also shares one vectorised generator. Every entity column draws from the
world's shared pools (시군구, 국회의원, 의안, 법인, 학교, 법령), so the values chain with the real platforms.
"""

from __future__ import annotations

import datetime as dt
from functools import cache

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.longtail import Dataset, datasets
from sim.platforms.assembly import api as _assembly
from sim.platforms.gg import api as _gg
from sim.platforms.law import api as _law
from sim.world.context import WorldContext
from sim.world.names import PLACE_STEMS
from sim.world.regions import SIDOS, sigungu_of
from sim.world.schools import schools
from sim.world.table import Cond, TableData

HOSTS = {"gg": "openapi.gg.go.kr", "seoul": "openapi.seoul.go.kr", "assembly": "open.assembly.go.kr",
         "datagokr": "apis.data.go.kr"}
FAMILIES = ("gg", "seoul", "assembly", "datagokr")


def _by_family(family: str) -> list[Dataset]:
    return [d for d in datasets() if d.family == family]


def _pools(ctx: WorldContext) -> dict[str, dict[str, np.ndarray]]:
    """Entity pools: each a set of aligned arrays (a row draws one index, so code and name agree)."""
    def arr(values: list) -> np.ndarray:
        return np.asarray(values, dtype=object)

    gg = sigungu_of("41")
    seoul = sigungu_of("11")
    every = [s for sido in SIDOS for s in sigungu_of(sido.code)]
    people = _assembly.build_members(ctx)
    bills = _assembly._bills(ctx, people).cols
    listed = [c for c in ctx.companies if c.stock_code]
    sch = schools(ctx)
    laws = _law._laws(ctx)
    return {
        "gg": {"gg_sigun_cd": arr([s.code for s in gg]), "gg_sigun_nm": arr([s.name for s in gg])},
        "seoul": {"seoul_cgg_cd": arr([s.code for s in seoul]), "seoul_cgg_nm": arr([s.name for s in seoul])},
        "region": {"sigungu_cd": arr([s.code for s in every]), "sigungu_nm": arr([s.name for s in every])},
        "member": {"mona_cd": arr([m.code for m in people.current]), "member_name": arr([m.name for m in people.current]),
                   "party_name": arr([m.party for m in people.current])},
        "bill": {"bill_id": arr(bills["BILL_ID"]), "bill_no": arr([str(b) for b in bills["BILL_NO"]]),
                 "bill_name": arr(bills["BILL_NAME"])},
        "corp": {"jurir_no": arr([c.jurir_no for c in listed]), "corp_name": arr([c.corp_name for c in listed]),
                 "stock_code": arr([c.stock_code for c in listed])},
        "school": {"atpt_code": arr([s.atpt_code for s in sch]), "school_code": arr([s.sd_code for s in sch]),
                   "school_name": arr([s.name for s in sch])},
        "law": {"law_id": arr([x["id"] for x in laws]), "law_name": arr([x["name"] for x in laws])},
    }


@cache
def _dates(today: int, span: int) -> np.ndarray:
    """YYYYMMDD strings of the `span` days up to `today` (formatted once: strftime dominates otherwise)."""
    return np.asarray([dt.date.fromordinal(today - k).strftime("%Y%m%d") for k in range(span)], dtype=object)


def _plain(rng: np.random.Generator, kind: str, n: int, subject: np.ndarray, today: int) -> list:
    """Values of a plain archetype for n rows (vectorised; pools of formatted strings are indexed)."""
    stems = np.asarray(PLACE_STEMS, dtype=object)
    pick = rng.integers(0, 1 << 30, n)
    if kind == "facility_name":
        return (stems[pick % len(stems)] + " " + subject).tolist()
    if kind == "title":  # a record's registered title: '정치자금 제1234호'
        return (subject + " 제" + (pick % 9000 + 1).astype(str).astype(object) + "호").tolist()
    if kind in ("road_addr", "lot_addr"):
        road = stems[pick % len(stems)] + ("로 " if kind == "road_addr" else "동 ")
        return (road + (pick % 400 + 1).astype(str).astype(object)).tolist()
    if kind in ("lat", "lon"):
        base = 37.0 if kind == "lat" else 127.0
        pool = np.asarray([f"{base + k * 1.2 / 9973:.6f}" for k in range(9973)], dtype=object)
        return pool[pick % len(pool)].tolist()
    if kind == "phone":
        pool = np.asarray([f"0{2 + p % 60}-{p % 900 + 100}-{p * 7 % 10000:04d}" for p in range(4999)], dtype=object)
        return pool[pick % len(pool)].tolist()
    if kind in ("date", "date2"):
        pool = _dates(today, 3 * 365 if kind == "date" else 20 * 365)
        return pool[pick % len(pool)].tolist()
    if kind == "year":
        return (2016 + pick % 10).astype(str).tolist()
    choices = {"institution": ("시청", "구청", "군청", "공단", "재단", "센터"), "division": ("공공", "민간", "법인", "기타"),
               "state": ("운영", "휴업", "폐업", "운영중"), "remark": ("", "", "", "정기점검"),
               "url": ("https://www.data.go.kr", "")}
    if kind in choices:
        return np.asarray(choices[kind], dtype=object)[pick % len(choices[kind])].tolist()
    scale = {"count": 300, "count2": 20_000, "amount": 500_000_000, "area": 5_000}[kind]
    return (rng.integers(0, scale, n)).astype(np.int64).tolist()


def _table(ctx: WorldContext, family: str, pools: dict) -> TableData:
    sets = _by_family(family)
    scale = ctx.n(1, 3)
    sizes = np.asarray([d.rows * scale for d in sets], dtype=np.int64)
    n = int(sizes.sum())
    which = np.repeat(np.arange(len(sets)), sizes)
    cols: dict[str, list] = {"DS_KEY": np.asarray([d.key for d in sets], dtype=object)[which].tolist()}
    entities: dict[str, str] = {}
    subject = np.asarray([d.subject for d in sets], dtype=object)[which]
    drawn: dict[str, np.ndarray] = {}  # one draw per pool, so every column of a group agrees
    today = ctx.today.toordinal()
    # Table columns, not wire names: datasets name one entity column many ways (and `CODE` means a
    # different entity in different datasets), so an entity role has one column per kind and each
    # endpoint maps its own wire names onto the columns.
    archs = {a.column: a for d in sets for a in d.columns}
    for column in sorted(archs):
        a = archs[column]
        group = next((g for g, p in pools.items() if a.kind in p), None)
        if group is None:
            cols[column] = _plain(ctx.rng("longtail", f"{family}:{column}"), a.kind, n, subject, today)
            continue
        if group not in drawn:
            size = len(next(iter(pools[group].values())))
            drawn[group] = ctx.rng("longtail", f"{family}:pool:{group}").integers(0, size, n)
        cols[column] = pools[group][a.kind][drawn[group]].tolist()
        if a.entity:
            entities[column] = a.entity
    return TableData(f"longtail_{family}", cols, entities=entities)


def tables(ctx: WorldContext) -> list[TableData]:
    pools = _pools(ctx)
    return [_table(ctx, family, pools) for family in FAMILIES]


# --- endpoints -------------------------------------------------------------------------------------

def _endpoint(d: Dataset) -> Endpoint:
    by_name = {a.name: a for a in d.columns}
    binds = {f: Bind(by_name[f].column, by_name[f].op, by_name[f].pattern) for f in d.filters}  # type: ignore[arg-type]
    columns = {a.name: a.column for a in d.columns}
    fixed = (Cond("DS_KEY", "eq", d.key),)
    numeric = tuple(a.name for a in d.columns if a.integer)
    table = f"longtail_{d.family}"
    if d.family == "gg":
        opts = {**_gg._OPTS, "numeric_fields": numeric}
        return Endpoint("portal", HOSTS["gg"], d.key, table, binds=binds, columns=columns, fixed=fixed,
                        max_page_size=1000, options=opts)
    if d.family == "assembly":
        opts = {**_assembly._PORTAL, "numeric_fields": numeric}
        return Endpoint("portal", HOSTS["assembly"], d.key, table, binds=binds, columns=columns, fixed=fixed,
                        max_page_size=1000, options=opts)
    if d.family == "seoul":
        return Endpoint("seoul", HOSTS["seoul"], d.key, table, binds=binds, columns=columns, fixed=fixed,
                        options={"positional": d.filters})
    return Endpoint("datagokr", HOSTS["datagokr"], d.key, table, binds=binds, columns=columns, fixed=fixed,
                    options={"format_param": "resultType", "ok_msg": "NORMAL SERVICE."})


@cache
def endpoints() -> tuple[Endpoint, ...]:
    return tuple(_endpoint(d) for d in datasets())


def __getattr__(name: str):
    # `ENDPOINTS` like every platform module, computed on first use (PEP 562).
    if name == "ENDPOINTS":
        return endpoints()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
