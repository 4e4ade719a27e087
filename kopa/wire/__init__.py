"""One module per envelope family: build the request, parse the envelope.

Written apart from the simulator's renderers (DESIGN.md decision 3); the reference for both is the
real services (shared/reference/platforms.md).
"""

from kopa.wire.base import PageInfo, Parsed, WireError, WireFamily, build_request
from kopa.wire.registry import family_of

__all__ = ["PageInfo", "Parsed", "WireError", "WireFamily", "build_request", "family_of"]
