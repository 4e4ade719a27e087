"""KRX Open API (data-dbg.krx.co.kr), and 금융위원회 주식시세정보 on the data.go.kr gateway."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="krx",
    domain="finance",
    groups=("openapi", "fsc"),
    hosts={"data-dbg.krx.co.kr": "krx", "apis.data.go.kr": "datagokr"},
    key_systems=("krx", "data_go_kr"),
    issues={"krx": KeyShape(40, "HEX")},
)
