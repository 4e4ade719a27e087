"""한국도로공사 고속도로 공공데이터 (data.ex.co.kr)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="ex",
    domain="traffic",
    groups=("api",),
    hosts={"data.ex.co.kr": "ex"},
    key_systems=("ex", "data_go_kr"),
    issues={"ex": KeyShape(10, "digits")},
    longtail_agencies=("1613000",),
)
