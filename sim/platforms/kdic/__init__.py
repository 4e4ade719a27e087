"""예금보험공사 on the data.go.kr gateway (agency B190017)."""

from sim.declaration import PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="kdic",
    domain="finance",
    groups=("api",),
    hosts={"apis.data.go.kr": "datagokr"},
    key_systems=("data_go_kr",),
    longtail_agencies=("1160100",),
)
