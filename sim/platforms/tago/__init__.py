"""국토교통부 국가대중교통정보센터 (TAGO) 버스정류소정보 · 버스노선정보 on the data.go.kr gateway (agency 1613000)."""

from sim.declaration import PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="tago",
    domain="traffic",
    groups=("bus",),
    hosts={"apis.data.go.kr": "datagokr"},
    key_systems=("data_go_kr",),
)
