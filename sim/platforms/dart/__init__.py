"""OpenDART 전자공시 (opendart.fss.or.kr)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="dart",
    domain="finance",
    groups=("api",),
    hosts={"opendart.fss.or.kr": "dart"},
    key_systems=("dart",),
    issues={"dart": KeyShape(40, "hex")},
)
