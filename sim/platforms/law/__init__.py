"""국가법령정보센터 DRF (www.law.go.kr)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="law",
    domain="law",
    groups=("api",),
    hosts={"www.law.go.kr": "law"},
    key_systems=("law", "data_go_kr"),
    issues={"law": KeyShape(10, "lower")},
    longtail_agencies=("1170000",),
)
