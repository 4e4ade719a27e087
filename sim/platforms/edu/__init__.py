"""교육데이터: NEIS 교육정보 개방포털 and 학교알리미, two API groups with a key each."""

from sim.declaration import KeyShape, PlatformDeclaration

PLATFORM = PlatformDeclaration(
    id="edu",
    domain="education",
    groups=("neis", "schoolinfo"),
    hosts={"open.neis.go.kr": "portal", "www.schoolinfo.go.kr": "schoolinfo"},
    key_systems=("neis", "schoolinfo"),
    issues={"neis": KeyShape(32, "hex"), "schoolinfo": KeyShape(32, "hex")},
    portal_hosts={"open.neis.go.kr": "neis"},
)
