"""HRD-Net / 고용24 훈련과정, and 한국산업인력공단 Q-Net on the data.go.kr gateway."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="hrd",
    domain="education",
    groups=("hrdnet", "qnet"),
    hosts={"www.hrd.go.kr": "hrd", "www.work24.go.kr": "hrd", "openapi.q-net.or.kr": "datagokr", "apis.data.go.kr": "datagokr"},
    key_systems=("hrd", "data_go_kr"),
    issues={"hrd": KeyShape(32, "hex")},
    longtail_agencies=("1342000",),
)
