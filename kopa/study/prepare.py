"""What every unit of a study folder shares, built once: the skeleton (faults cannot change it), the truth
of each skeleton edge, and the fault profiles as TOML files.

The truth is read through kopa.edge.truth_study (edge_is_true, the sanctioned reader of true bindings).
Which tools the drift scenario touches is read from the simulator's endpoint routing (sim.truth's
endpoint_for_url, as truth_study itself does): it says which endpoint a tool calls, nothing about
bindings.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import orjson

from kopa.backends.spec import open_backend
from kopa.catalog.loader import load_catalog
from kopa.edge.embed import HashingEmbedder
from kopa.edge.graph import ToolGraph, build_skeleton
from kopa.edge.proposer import OfflineProposer
from kopa.edge.truth_study import edge_is_true
from kopa.fileio import write_atomic
from kopa.study.faults import check_profile, profile_toml
from kopa.study.grid import DRIFT_SCENARIO, StudyConfig, profile_kind_rate
from kopa.wire import family_of
from sim.drift import load_scenario
from sim.faults import load_profile
from sim.truth import endpoint_for_url


def study_tools(config: StudyConfig) -> list:
    catalog = load_catalog()
    if config.tools is not None:
        missing = sorted(set(config.tools) - {t.name for t in catalog})
        if missing:
            raise ValueError(f"unknown tool(s) {missing}")
        return [catalog[name] for name in sorted(config.tools)]
    known = sorted({t.platform for t in catalog if t.family != "session"})
    unknown = sorted(set(config.platforms) - set(known))
    if unknown:
        raise ValueError(f"unknown platform(s) {unknown}; valid: {', '.join(known)}")
    return [t for t in catalog if t.family != "session" and t.platform in config.platforms]


def build_skeleton_once(folder: Path, config: StudyConfig):
    path = folder / "skeleton.json"
    if path.exists():
        return ToolGraph.load_json(path)
    graph = build_skeleton(study_tools(config), HashingEmbedder(), OfflineProposer(), config.edge_config("asymmetric", 0))
    graph.save_json(path)
    return graph


def _drifted_tools(simulator, tools: list[str]) -> set[str]:
    changed = {(c.host, c.endpoint) for c in load_scenario(DRIFT_SCENARIO).changes_until(1)}
    catalog = load_catalog()
    out = set()
    for name in tools:
        tool = catalog[name]
        request = family_of(tool.family).build(tool, {}, "study-key")
        endpoint = endpoint_for_url(simulator, str(request.url))
        if endpoint is not None and (endpoint.host, endpoint.key) in changed:
            out.add(name)
    return out


def write_truth_once(folder: Path, config: StudyConfig, skeleton) -> None:
    """truth.json: [source, target, truly bound, touches a drifted endpoint] per skeleton edge, sorted."""
    path = folder / "truth.json"
    if path.exists():
        return
    simulator = open_backend(config.world).simulator
    drifted = _drifted_tools(simulator, skeleton.nodes)
    rows = [[s, t, edge_is_true(simulator, skeleton.edges[(s, t)]), s in drifted or t in drifted]
            for s, t in sorted(skeleton.edges)]
    write_atomic(path, orjson.dumps(rows))


def write_profiles(folder: Path, names: Iterable[str]) -> None:
    """profiles/<name>.toml for every profile a study's cells name ('mix-20', 'timeout-40', 'none-0'), each
    checked to fail first attempts at its rate (a study of pruning or of robustness)."""
    directory = folder / "profiles"
    directory.mkdir(parents=True, exist_ok=True)
    for name in sorted(set(names)):
        kind, rate = profile_kind_rate(name)
        path = directory / f"{name}.toml"
        text = profile_toml(kind, rate).encode()
        if not path.exists() or path.read_bytes() != text:
            write_atomic(path, text)
        check_profile(load_profile(str(path)), rate)
