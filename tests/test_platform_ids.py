"""The platform declarations (`sim/platforms/<id>/__init__.py`, read by sim/registry.py) agree with
everything else that names platforms: the catalog's platform ids, domains and every tool's key system, the
key-issuance tool's enum, the API-group modules in each package, every fault profile's sections and quotas,
and the two Domain literals."""

from __future__ import annotations

import tomllib
import typing
from pathlib import Path

import pytest

import sim
import sim.platforms
from kopa.catalog import load_catalog
from kopa.catalog.models import Domain as CatalogDomain
from kopa.eval.task import Domain as TaskDomain
from sim.platforms import group_modules
from sim.registry import KEY_SHAPES, KEY_SYSTEMS, PLATFORM_IDS, PLATFORMS, endpoint_index

CATALOG = load_catalog()
CATALOG_PLATFORMS = {t.platform for t in CATALOG} - {"session"}
PROFILES = sorted((Path(sim.__file__).parent / "profiles").glob("*.toml"))


def test_catalog_registry_and_key_issuance_name_the_same_platforms():
    assert set(PLATFORM_IDS) == CATALOG_PLATFORMS and len(PLATFORM_IDS) == len(set(PLATFORM_IDS))
    enum = next(p.enum for p in CATALOG["issue_api_key"].spec.params if p.name == "platform")
    assert set(enum) == CATALOG_PLATFORMS


def test_each_platform_package_declares_its_catalog_domain():
    for declaration in PLATFORMS:
        assert {t.domain for t in CATALOG if t.platform == declaration.id} == {declaration.domain}, declaration.id


def test_every_module_serving_endpoints_in_a_platform_package_is_a_declared_api_group():
    """A group module left out of its declaration would be silently unserved; a declared one must serve."""
    root = Path(sim.platforms.__file__).parent
    serving = {f"sim.platforms.{p.parent.name}.{p.stem}" for p in root.glob("*/*.py")
               if "\nENDPOINTS" in p.read_text(encoding="utf-8")}
    declared = {module.__name__ for _, module in group_modules()}
    assert serving == declared
    for _, module in group_modules():
        assert callable(module.tables) and module.ENDPOINTS, module.__name__


def test_every_endpoint_is_served_on_a_host_its_platform_declares_for_its_family():
    index = endpoint_index()  # building the index checks each endpoint against its declaration
    declared_hosts = {h for p in PLATFORMS for h in p.hosts}
    assert {host for host, _ in index.endpoints} == declared_hosts
    for (host, key), platform in index.platforms.items():
        assert platform in PLATFORM_IDS, (host, key)


def test_every_tools_key_system_is_one_its_platform_declares():
    declared = {p.id: set(p.key_systems) for p in PLATFORMS}
    used: dict[str, set[str]] = {}
    for tool in CATALOG:
        if tool.auth is not None and tool.platform in declared:
            used.setdefault(tool.platform, set()).add(tool.auth.key_id)
    for platform, systems in used.items():
        assert systems <= declared[platform], (platform, systems - declared[platform])
    assert set().union(*declared.values()) == set(KEY_SYSTEMS)


def test_every_tools_requests_are_counted_to_its_catalog_platform():
    """The fault layer's platform of a request (module map, long-tail hosts and gateway agencies) is the
    platform the catalog files the tool under, for all 2,478 tools, the generated long tail included."""
    from kopa.wire import family_of
    from sim.faults import platform_of

    tools = [t for t in CATALOG if t.platform != "session"]
    assert len(tools) > 2000
    for tool in tools:
        args = {p.name: "1" for p in tool.spec.params if p.required}
        request = family_of(tool.family).build(tool, args, "key")
        assert platform_of(request.url.host, request.url.path) == tool.platform, (tool.name, str(request.url))


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.stem)
def test_every_fault_profile_names_only_known_platforms_and_key_systems(profile):
    data = tomllib.loads(profile.read_text(encoding="utf-8"))
    assert set(data.get("platforms", {})) <= CATALOG_PLATFORMS
    assert set(data.get("quotas", {})) <= set(KEY_SYSTEMS)


def test_the_realistic_profile_covers_every_platform():
    """Each platform has rates chosen for it: a section of its own, or its one key system's (a platform
    only behind the data.go.kr gateway gets the gateway's)."""
    data = tomllib.loads((Path(sim.__file__).parent / "profiles" / "realistic.toml").read_text(encoding="utf-8"))
    for declaration in PLATFORMS:
        systems = declaration.key_systems
        covered = declaration.id in data["platforms"] or (len(systems) == 1 and systems[0] in data["key_systems"])
        assert covered, declaration.id


def test_key_systems_have_one_shape_each_and_domains_one_literal():
    assert set(KEY_SYSTEMS) == set(KEY_SHAPES)
    assert typing.get_args(CatalogDomain) == typing.get_args(TaskDomain)
    assert {t.domain for t in CATALOG if t.domain} <= set(typing.get_args(CatalogDomain))
