"""EDGE Phase A skeleton: embedder, retriever, offline/LLM proposer, plans, Beta priors, graph I/O."""

from __future__ import annotations

import math
from collections import Counter

import mpmath
import networkx as nx
import numpy as np
import pytest

from kopa.catalog import load_catalog
from kopa.catalog.models import ParamSpec
from kopa.catalog.view import FieldView, ParamView, ToolView, param_view, view_of
from kopa.edge import (
    Edge,
    EdgeConfig,
    HashingEmbedder,
    OfflineProposer,
    OpenAIProposer,
    ToolGraph,
    beta_cdf,
    build_skeleton,
    compile_plan,
    is_generic,
    prior,
    retrieve,
)
from kopa.edge.plan import is_paging
from kopa.edge.retriever import graph_tools
from kopa.edge.signature import input_params, signature_text
from kopa.llm.client import ChatReply


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def views(catalog):
    """Every tool's public view by name: what the proposer and the plans read."""
    return {t.name: view_of(t) for t in catalog}


@pytest.fixture(scope="module")
def tools(catalog):
    """The documented (real) tools: a fixed subset, so tests stay fast while generated tools grow."""
    return [t for t in catalog if t.spec.real]


@pytest.fixture(scope="module")
def skeleton(tools):
    return build_skeleton(tools, HashingEmbedder(), OfflineProposer(), EdgeConfig())


# ---------------------------------------------------------------- embedder

def test_embedder_is_deterministic_and_normalised():
    texts = ["corp_code 고유번호", "학교 급식 식단정보", "지하철 역코드 STATION_CD"]
    a, b = HashingEmbedder().embed(texts), HashingEmbedder().embed(texts)
    assert a.shape == (3, 4096)
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)


def test_embedder_puts_korean_near_korean():
    corpus = ["고유번호", "corp_code 고유번호", "학교 급식 식단정보", "지하철 역코드", "법령 조문 내용", "국회의원 이름"]
    v = HashingEmbedder().embed(corpus)
    sims = v[1:] @ v[0]
    assert sims[0] > 0.4
    assert sims[0] == max(sims)
    assert all(s < 0.2 for s in sims[1:])


# ---------------------------------------------------------------- retriever

def test_retrieval_keeps_K_same_and_Kx_cross_domain_per_source(tools):
    K, Kx = 5, 3
    cands = retrieve(tools, HashingEmbedder(), K=K, Kx=Kx)
    nodes = {t.name: t for t in graph_tools(tools)}
    targets = [n for n, t in nodes.items() if input_params(t)]
    same, cross = Counter(), Counter()
    for c in cands:
        assert c.source != c.target
        assert c.target in targets and "issue_api_key" not in (c.source, c.target)
        assert (nodes[c.source].domain != nodes[c.target].domain) == c.cross_domain
        (cross if c.cross_domain else same)[c.source] += 1
    for name, tool in nodes.items():
        n_same = sum(1 for t in targets if t != name and nodes[t].domain == tool.domain)
        assert same[name] == min(K, n_same)
        assert cross[name] == Kx
    assert len({(c.source, c.target) for c in cands}) == len(cands)
    assert cands == retrieve(tools, HashingEmbedder(), K=K, Kx=Kx)


def test_retrieval_finds_the_corp_code_chain(tools):
    cands = [c for c in retrieve(tools, HashingEmbedder()) if c.source == "find_dart_corp_code"]
    assert "get_dart_company_overview" in [c.target for c in cands if not c.cross_domain]


def test_signature_text_carries_korean_and_formats(views):
    text = signature_text(views["get_dart_company_overview"])
    assert "get dart company overview" in text and "기업개황" in text
    assert "corp_code" in text and "고유번호" in text


# ---------------------------------------------------------------- proposer and plans

def test_offline_proposer_binds_corp_code_chain(views):
    p = OfflineProposer().propose(views["find_dart_corp_code"], views["get_dart_company_overview"])
    assert p.bindings == {"corp_code": "corp_code"}
    assert p.score >= 0.5


def test_offline_proposer_scores_unrelated_pair_low(views):
    p = OfflineProposer().propose(views["find_dart_corp_code"], views["get_neis_school_meal_menu"])
    assert p.bindings == {}
    assert p.score < EdgeConfig().s_min


def test_offline_proposer_does_not_bind_unrelated_dates(views):
    # modify_date (최종변경일자) is not a search window: dates stay CLARIFY with format examples.
    p = OfflineProposer().propose(views["find_dart_corp_code"],
                                  views["get_dart_convertible_bond_issuance_decision"])
    assert p.bindings == {"corp_code": "corp_code"}
    assert p.defaults["bgn_de"] == ["20260130"]
    # A 주요사항보고서 answers only for companies that reported the event: the same binding is worth less
    # than one into the company overview, which answers for every company.
    overview = OfflineProposer().propose(views["find_dart_corp_code"], views["get_dart_company_overview"])
    assert p.score < overview.score / 2


def _view(name: str, params=(), output=()) -> ToolView:
    return ToolView(name=name, title=name, description="", platform="gg", domain="district",
                    params=tuple(ParamView(name=n, type="string", required=True, description=d) for n, d in params),
                    output=tuple(FieldView(name=n, type="string", description=d) for n, d in output))


def test_a_generic_name_binds_only_by_its_korean_wording():
    # CODE means 업종코드 in one dataset and 시군코드 in another: equal generic names are no evidence.
    source = _view("list_gg_shops", output=[("CODE", "업종코드")])
    assert OfflineProposer().propose(source, _view("get_gg_region", params=[("CODE", "시군코드")])).bindings == {}
    same = OfflineProposer().propose(source, _view("get_gg_industry", params=[("CODE", "업종코드")]))
    assert same.bindings == {"CODE": "CODE"}
    # A specific name still binds on its own.
    named = OfflineProposer().propose(_view("list_gg_a", output=[("SIGUN_CD", "코드")]),
                                      _view("get_gg_b", params=[("SIGUN_CD", "시군")]))
    assert named.bindings == {"SIGUN_CD": "SIGUN_CD"}



def _region_view(name: str, title: str, wire: str, label: str, side: str, pattern: str = r"^\d{5}$") -> ToolView:
    """A dataset documenting one region code as the long tail does: a shape-only format wording."""
    doc = "숫자 5자리"
    params, output = (), ()
    if side == "param":
        params = (ParamView(name=wire, type="string", required=False, description=label, pattern=pattern,
                            format_description=doc),)
    else:
        output = (FieldView(name=wire, type="string", description=label, pattern=pattern, format_description=doc),)
    return ToolView(name=name, title=title, description=f"{title} 정보를 제공합니다.", platform="x", domain="district",
                    params=params, output=output)


def test_region_codes_bind_across_wire_names_and_hold_only_within_a_region():
    # 자치구코드 CGG_CD and 구코드 GU_CD are one kind of code; a Seoul dataset's values answer another Seoul
    # dataset, never a Gyeonggi one (its 시군 are other codes of the same 5-digit shape).
    source = _region_view("seoul_a", "서울시 공연장 점검 결과", "CGG_CD", "자치구코드", "field")
    seoul = OfflineProposer().propose(source, _region_view("seoul_b", "서울시 경로당 현황", "GU_CD", "구코드", "param"))
    gg = OfflineProposer().propose(source, _region_view("gg_b", "경기도 경로당 현황", "SIGUN_CD", "시군코드", "param"))
    nationwide = OfflineProposer().propose(
        _region_view("mois_a", "행정안전부_지방세 현황", "sggCd", "시군구코드", "field"),
        _region_view("gg_c", "경기도 경로당 현황", "SIGUN_CD", "시군코드", "param"))
    assert seoul.bindings == {"GU_CD": "CGG_CD"} and gg.bindings == {"SIGUN_CD": "CGG_CD"}
    assert seoul.score >= 0.8 > 0.3 > nationwide.score > gg.score


def test_region_scope_and_shape_only_wording():
    from kopa.edge.proposer import closed_coverage, region_scope, shape_only

    assert region_scope(_region_view("a", "서울시 공연장", "X", "x", "field")) == "서울"
    assert region_scope(_region_view("b", "국토교통부_버스정류소 목록", "X", "x", "field")) is None
    assert shape_only("숫자 6자리") and shape_only("영문 대문자·숫자 8자리") and shape_only("PRC_ 뒤에 영문 대문자·숫자 29~30자리")
    assert not shape_only("법령ID (6자리)") and not shape_only("YYYYMMDD 형식의 날짜 (예: 20260130)")
    assert not shape_only(None)
    # A few-member population (시도, 교육청) is held by any dataset; 시군구 codes only within their region.
    assert closed_coverage("서울", "경기", small=True) < 0.1 < closed_coverage(None, None, small=True)
    assert closed_coverage("서울", "서울", small=False) > closed_coverage(None, None, small=False) \
        > closed_coverage(None, "서울", small=False)


def test_the_same_shape_is_no_shared_concept():
    # 법령ID and 단축코드 are both '숫자 6자리' in the long tail: the wording of a shape binds nothing by
    # itself, so the pair is no better than a same-pattern guess.
    def item(name, label):
        return dict(name=name, type="string", description=label, pattern=r"^\d{6}$", format_description="숫자 6자리")

    source = ToolView(name="s", title="s", description="", platform="x", domain=None, params=(),
                      output=(FieldView(**item("srtnCd", "단축코드")),))
    target = ToolView(name="t", title="t", description="", platform="x", domain=None,
                      params=(ParamView(required=True, **item("lawCd", "법령코드")),), output=())
    assert OfflineProposer().propose(source, target).score < 0.3

def test_plan_upstream_default_clarify_on_real_tools(views):
    target = views["get_dart_single_company_key_accounts"]
    p = OfflineProposer().propose(views["find_dart_corp_code"], target)
    plan = compile_plan(target, p)
    assert plan["corp_code"].kind == "UPSTREAM" and plan["corp_code"].field == "corp_code"
    assert plan["reprt_code"].kind == "CLARIFY"
    assert plan["reprt_code"].values == ["11011", "11012", "11013", "11014"]
    assert plan["bsns_year"].kind == "CLARIFY"

    search = views["search_dart_disclosures"]
    plan = compile_plan(search, OfflineProposer().propose(views["find_dart_corp_code"], search))
    assert plan["corp_code"].kind == "UPSTREAM"
    assert (plan["page_no"].kind, plan["page_no"].values) == ("DEFAULT", ["1"])
    assert (plan["page_count"].kind, plan["page_count"].values) == ("DEFAULT", ["10"])
    assert plan["pblntf_ty"].kind == "CLARIFY"


def test_is_generic():
    assert is_generic(param_view(ParamSpec(name="pIndex", type="integer", paging=True, description="페이지 위치")))
    assert is_generic(param_view(ParamSpec(name="resultType", description="응답 형식")))
    assert is_generic(param_view(ParamSpec(name="Type", description="json")))
    assert not is_generic(param_view(ParamSpec(name="corp_code", format="corp_code", description="고유번호")))
    # Paging is read from the documentation: an integer worded in pages or result counts, whatever the name.
    assert is_generic(param_view(ParamSpec(name="display", type="integer", description="검색된 결과 개수")))
    assert not is_generic(param_view(ParamSpec(name="pIndex", type="string", description="지역 코드")))


def test_paging_read_from_the_docs_agrees_with_the_catalog_flag(catalog):
    # The catalog's paging flag is kopa's own annotation, not documentation; the wording must tell it.
    for tool in catalog:
        for p in tool.spec.params:
            assert is_paging(param_view(p)) == p.paging, (tool.name, p.name, p.description)


class _FakeChat:
    model = "fake"

    def __init__(self, content: str) -> None:
        self.content = content
        self.calls = 0

    def request_params(self, params):
        return params

    def complete(self, messages, tools=None, **params):
        self.calls += 1
        assert "find_dart_corp_code" in messages[-1]["content"]
        return ChatReply(content=self.content)


def test_openai_proposer_parses_and_validates(views):
    src, dst = views["find_dart_corp_code"], views["get_dart_company_overview"]
    chat = _FakeChat('```json\n{"score": 0.9, "bindings": {"corp_code": "corp_code", "x": "nope"},'
                     ' "defaults": {}, "rationale": "고유번호"}\n```')
    p = OpenAIProposer(chat).propose(src, dst)
    assert (p.score, p.bindings, chat.calls) == (0.9, {"corp_code": "corp_code"}, 1)
    assert "dropped" in p.rationale

    bad = OpenAIProposer(_FakeChat("I think it works")).propose(src, dst)
    assert bad.score == 0.0 and bad.bindings == {} and "unusable" in bad.rationale
    clipped = OpenAIProposer(_FakeChat('{"score": 7}')).propose(src, dst)
    assert clipped.score == 1.0


# ---------------------------------------------------------------- Beta prior and posterior

@pytest.mark.parametrize(("x", "a", "b", "expected"), [
    (0.5, 2, 3, 0.6875),
    (0.3, 1, 1, 0.3),
    (0.5, 4, 4, 0.5),
    (0.7, 3, 1, 0.343),
])
def test_beta_cdf_known_values(x, a, b, expected):
    assert beta_cdf(x, a, b) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("x", "a", "b"), [(0.5, 1.6, 2.4), (0.5, 13.3, 2.1), (0.2, 0.7, 40.5),
                                           (0.9, 55.0, 3.3), (0.5, 1.0, 101.5)])
def test_beta_cdf_matches_mpmath(x, a, b):
    assert beta_cdf(x, a, b) == pytest.approx(float(mpmath.betainc(a, b, 0, x, regularized=True)), abs=1e-10)


def test_prior_formula_and_pruning_rule():
    assert prior(0.7) == pytest.approx((2.4, 1.6))
    assert prior(0.3, kappa=2.0) == pytest.approx((1.6, 2.4))
    a, b = prior(0.8)
    e = Edge(source="a", target="b", score=0.8, alpha=a, beta=b, prior_alpha=a, prior_beta=b)
    assert e.mean == pytest.approx(2.6 / 4.0)
    assert e.prob_above(0.5) == pytest.approx(1 - beta_cdf(0.5, 2.6, 1.4))
    assert not e.should_prune()  # untried
    e.attempts, e.beta = 2, e.beta + 3.0  # two structural failures
    assert e.prob_above(0.5) < 0.3 and e.should_prune()


# ---------------------------------------------------------------- skeleton

def test_skeleton_edges_carry_priors_and_plans(skeleton):
    cfg = EdgeConfig()
    assert len(skeleton) > 100
    for edge in skeleton.sorted_edges():
        assert edge.score >= cfg.s_min
        assert (edge.alpha, edge.beta) == pytest.approx(prior(edge.score, cfg.kappa))
        assert any(s.kind == "UPSTREAM" for s in edge.plan.values())
    e = skeleton.edges[("find_dart_corp_code", "get_dart_company_overview")]
    assert e.plan["corp_code"].field == "corp_code" and e.alpha == pytest.approx(1 + 2 * e.score)
    outs = skeleton.out_edges("find_dart_corp_code")
    assert [x.target for x in outs] == sorted(x.target for x in outs)


def test_skeleton_json_is_byte_stable_and_round_trips(tools, skeleton, tmp_path):
    again = build_skeleton(list(reversed(tools)), HashingEmbedder(), OfflineProposer(), EdgeConfig())
    assert again.to_json_bytes() == skeleton.to_json_bytes()
    path = skeleton.save_json(tmp_path / "g.json")
    loaded = ToolGraph.load_json(path)
    assert loaded.to_json_bytes() == path.read_bytes()
    g = loaded.to_networkx()
    assert g.number_of_edges() == len(skeleton)
    assert g.edges["find_dart_corp_code", "get_dart_company_overview"]["bindings"] == {"corp_code": "corp_code"}


def test_graphml_export(skeleton, tmp_path):
    path = skeleton.save_graphml(tmp_path / "g.graphml")
    g = nx.read_graphml(path)
    assert g.number_of_edges() == len(skeleton)
    attrs = g.edges["find_dart_corp_code", "get_dart_company_overview"]
    assert math.isclose(attrs["alpha"], skeleton.edges[("find_dart_corp_code", "get_dart_company_overview")].alpha)


def test_load_json_rejects_garbage(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a kopa tool graph"):
        ToolGraph.load_json(bad)
