"""The tool catalog: typed specs of the real endpoints of ten platforms, kept as data files."""

from kopa.catalog.loader import Catalog, CatalogError, load_catalog
from kopa.catalog.models import AuthSpec, FieldSpec, ParamSpec, PlatformSpec, Tool, ToolSpec

__all__ = [
    "AuthSpec",
    "Catalog",
    "CatalogError",
    "FieldSpec",
    "ParamSpec",
    "PlatformSpec",
    "Tool",
    "ToolSpec",
    "load_catalog",
]
