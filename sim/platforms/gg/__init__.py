"""경기데이터드림 (openapi.gg.go.kr)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="gg",
    domain="district",
    groups=("api",),
    hosts={"openapi.gg.go.kr": "portal"},
    key_systems=("gg", "data_go_kr"),
    issues={"gg": KeyShape(32, "hex")},
    portal_hosts={"openapi.gg.go.kr": "gg"},
    longtail_hosts=("openapi.gg.go.kr",),
    longtail_agencies=("1741000",),
)
