"""열린국회정보 (open.assembly.go.kr)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="assembly",
    domain="politics",
    groups=("api",),
    hosts={"open.assembly.go.kr": "portal"},
    key_systems=("assembly", "data_go_kr"),
    issues={"assembly": KeyShape(32, "hex")},
    portal_hosts={"open.assembly.go.kr": "assembly"},
    longtail_hosts=("open.assembly.go.kr",),
    longtail_agencies=("9710000",),
)
