"""The question bank proposes the handoffs its questions make as edges of Phase A's skeleton: each with the
binding the questions make (not a proposer's other guesses) and the values they state for the target's other
arguments; Phase A then verifies them by execution like any other edge."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from kopa.bank.hops import bank_hops, bank_seeds
from kopa.bank.model import load_bank
from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.embed import HashingEmbedder
from kopa.edge.graph import build_skeleton
from kopa.edge.proposer import OfflineProposer

CATALOG = load_catalog()
BANK = load_bank(Path(__file__).parent / "data" / "intents")
TODAY = dt.date(2026, 1, 30)


def test_the_bank_s_handoffs_are_read_from_its_golden_steps():
    hops = {(h.source, h.target, h.param, h.field) for h in bank_hops(BANK, CATALOG)}
    assert ("list_assembly_committees", "list_assembly_committee_members", "DEPT_CD", "HR_DEPT_CD") in hops
    assert ("find_dart_corp_code", "get_dart_company_overview", "corp_code", "corp_code") in hops
    assert ("find_assembly_member", "search_member_proposed_bills", "RST_MONA_CD", "MONA_CD") in hops
    # the calculator takes counts, never a data handoff; a parallel lookup hands nothing to its sibling
    assert not any(h.target == "evaluate_expression" or h.source == h.target for h in bank_hops(BANK, CATALOG))


def test_a_seed_offers_the_values_the_questions_state_for_the_other_arguments():
    seeds = {(s.source, s.target): s for s in bank_seeds(BANK, CATALOG, TODAY)}
    bills = seeds[("find_assembly_member", "search_member_proposed_bills")]
    assert bills.bindings == {"RST_MONA_CD": "MONA_CD"} and bills.stated == {"AGE": ["22"]}  # a literal
    promulgated = seeds[("list_bill_vote_results", "get_bill_detail")]
    assert promulgated.bindings == {"BILL_ID": "BILL_ID"}


def test_seeded_edges_enter_the_skeleton_with_the_bank_s_binding_only():
    tools = [t for t in CATALOG if t.platform == "assembly" and t.spec.real and t.family != "session"]
    seeds = bank_seeds(BANK, CATALOG, TODAY)
    plain = build_skeleton(tools, HashingEmbedder(), OfflineProposer(), EdgeConfig())
    seeded = build_skeleton(tools, HashingEmbedder(), OfflineProposer(), EdgeConfig(), seeds=seeds)
    key = ("list_assembly_committees", "list_assembly_committee_members")
    assert key not in plain.edges  # the retriever and the offline proposer alone leave it out
    edge = seeded.edges[key]
    assert edge.seeded and edge.bindings == {"DEPT_CD": "HR_DEPT_CD"} and edge.score >= 0.5
    assert edge.plan["DEPT_CD"].kind == "UPSTREAM" and edge.plan["DEPT_CD"].field == "HR_DEPT_CD"
    assert not any(e.seeded for e in plain.edges.values())
    assert set(plain.edges) <= set(seeded.edges)
