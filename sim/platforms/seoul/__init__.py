"""서울 열린데이터광장 (openapi.seoul.go.kr:8088)."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="seoul",
    domain="traffic",
    groups=("api",),
    hosts={"openapi.seoul.go.kr": "seoul"},
    key_systems=("seoul",),
    issues={"seoul": KeyShape(32, "hex")},
    longtail_hosts=("openapi.seoul.go.kr",),
)
