"""What a person asks of each tool the offline generator draws, written by hand (the blind reads' verdicts).

A query asks about something specific — a place, a person with their role, a school, a company, a law, a bill
with its number — or for a whole set that means something by itself ("고속도로 휴게소 목록"); it says what the
person wants to know ("…의 이력", "…은 본회의에서 어떻게 표결됐나요?"), never a dataset's label ("의안 표결
결과", "단일회사 주요계정"); it never states a system's internal ID (a DART 고유번호, a 의안ID, a school's
행정표준코드). So the offline generator draws only the tools this module words:

- `BY_TOOL`: the documented endpoints (and 경기도's 시군 population and 어린이집), tool by tool (a tool that takes only an internal ID is not here: the DART
  reports on a 고유번호, `get_bill_detail` / `get_bill_proposers` on a 의안ID, NEIS's school timetables, meals,
  schedules and classes on a 행정표준코드, Seoul's timetable, route stops and commercial areas on codes, and
  `search_dart_disclosures`, whose only statable filters are kinds);
- the long tail (`kopa/catalog/data/*_longtail.yaml`: a subject crossed with an aspect), by subject and aspect:
  `LOCAL` (경기도 / 서울 facilities), `MEMBER` and `BILL` (the Assembly's), `DATAGOKR` (data.go.kr's, by
  agency). An aspect a person does not ask of a subject ("가로등 이용 현황", "어린이보호구역 폐업 현황", "의안
  공청회 통계") and a subject that cannot be said naturally (의안 청원 연계, 대안반영 폐기, 의견등록, 공항 운항 or
  화물운송 by 시군구, a company's 보험상품, 대출상품, 신용공여, 증권 예탁, 소상공인 정책자금 and 점포, 교육
  정보화, 학교 안전, 법령 조문 인용, 위임, 용어, 자치법규 위임, 재난 안전) is left out of the draw.

An `Ask` says what is asked of the subject (`what`, said after "<subject>의"), how the ask reads on its own
(`alone`: noun phrases or whole questions with `<s>`), what is asked of the whole set where that means
something (`whole`: templates whose `<PARAM>` slots are the values stated), and its `theme`: two asks of one
sample share a theme (one information need: "가평군의 주차장과 약국"), and an opener is one of that theme's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from kopa.catalog.models import ParamSpec, Tool
from kopa.korean.vocabulary import param_label, spoken_place

# ------------------------------------------------------------------ what a subject is, and how it is said


@dataclass(frozen=True)
class Ask:
    what: str = ""  # asked of the subject, after '<subject>의': '주차장', '이력', '본회의 표결 결과'
    by: str | None = None  # the subject's kind (SUBJECT_LABELS, or one only `param` names): None = no subject
    param: str | None = None  # the subject's parameter where a label would not find it
    alone: tuple[str, ...] = ()  # the ask on its own: noun phrases or questions ('…?', '….') with <s>
    whole: tuple[str, ...] = ()  # the ask of the whole set: noun phrases or questions with <PARAM> slots
    theme: str = "stats"
    also: tuple[str, ...] = ()  # other themes it is asked beside ('주차장' on an outing too: '…의 주차장과 맛집')
    fact: bool = False  # asks a fact of the subject ('소속 정당과 지역구'), not a set of things ('주차장')
    places: bool = False  # things in the subject's area: '<s>에 있는 …' reads too
    kinds: tuple[str, dict[str, str]] | None = None  # an enum whose value changes what is asked ('공영 주차장')
    always: bool = False  # `kinds` always set (the tool answers nothing a person wants without it)
    say: dict[str, dict[str, str]] = field(default_factory=dict)  # a slot's value → how it is said
    source: tuple[str, str | None] | None = None  # the subject's values: another field of the tool's records
    # (and a pattern whose group 1 is the name in it), where the parameter is a search term ('query')
    same: dict[str, str] = field(default_factory=dict)  # a parameter sent with another's value, said by it
    root: str = ""  # what the ask is about, for telling two asks apart (the long tail's subject)
    pairs: bool = True  # asked beside another ask of the same subject ('가평군의 주차장과 약국')
    narrow: bool = False  # a documented endpoint that answers for few subjects of its kind (`broad`)
    alone_only: bool = False  # asked only as `alone` words it: '<s>의 호선' names a field, '몇 호선인가요?' asks


# Labels that name a subject's parameter in the long tail, by the subject's kind.
SUBJECT_LABELS = {
    "region": {"시군명", "시군 이름", "시군구명", "자치구명", "자치구 이름", "구명", "지역명", "행정구역명"},
    "member": {"이름", "국회의원명", "의원명", "의원 성명"},
    "bill": {"의안번호", "의안 번호"},
    "school": {"학교명", "학교 이름"},
    "company": {"기업명", "법인명", "회사명"},
    "law": {"법령명"},
}
# A district name several cities have: said without its city it names none.
AMBIGUOUS_PLACES = frozenset({"중구", "동구", "서구", "남구", "북구", "강서구", "광주시"})
REGION_PREFIX = {"gg": "경기도", "seoul": "서울", "kr": ""}


def scope(tool: Tool) -> str:
    """Where a region the tool takes lies: 경기도 (gg, its 시군), 서울 (its 구), or anywhere (data.go.kr)."""
    family = tool.name.split("_")[1] if tool.name.count("_") >= 1 else ""
    return {"gg": "gg", "seoul": "seoul"}.get(family, "kr")


def broad(tool: Tool, kind: str | None) -> bool:
    """Whether the tool answers for any subject of its kind the world has, not only for those it returned: the
    documented endpoints on the Assembly's members, NEIS's schools and the 시군구 of their area, and the
    long tail's 경기도 / 서울 facilities on their 시군 or 구 (each covers nearly all of them). A data.go.kr or
    Assembly long-tail table holds its own few companies, schools, laws, members and bills."""
    ask = BY_TOOL.get(tool.name)
    if tool.spec.real:
        return kind in ("member", "school", "region") and not (ask is not None and ask.narrow)
    return kind == "region" and scope(tool) in ("gg", "seoul")


def valid(kind: str, value: str, where: str = "kr") -> bool:
    """Whether `value` is one a person states as a subject of `kind`: a 시군 of 경기도 ends in 시 or 군, a 구 of
    서울 in 구, a place elsewhere in 시, 군 or 구 and is not a district name many cities have; a person's name is
    two to four syllables; a bill and a bus route are numbers; a rest area, a filling station and a company of
    a kind end as they are named ('…휴게소', '…주유소', '…은행', '…증권', '…생명보험', '…화재해상보험'); a
    case name is not a catch-all ('이혼등')."""
    if kind in ("bill", "route"):
        return value.isdigit()
    if not re.search(r"[가-힣]", value):
        return False
    checks = {
        "region": {"gg": r"[가-힣]+[시군]", "seoul": r"[가-힣]+구"}.get(where, r"(?:[가-힣]+시 )?[가-힣]+[시군구]"),
        "member": r"[가-힣]{2,4}",
        "school": r".+학교",
        "committee": r".+위원회",
        "rest": r".+휴게소",
        "oil": r".+주유소",
        "toll": r"[가-힣]+",
        "bank": r".+은행",
        "securities": r".+증권",
        "life": r".+생명보험",
        "nonlife": r".+(?:화재해상보험|손해보험)",
    }
    if kind in checks and not re.fullmatch(checks[kind], value):
        return False
    if kind == "region" and value in AMBIGUOUS_PLACES:
        return False
    return not (kind == "case" and value.endswith("등"))


def display(kind: str, value: str, name: str | None = None) -> str:
    """One subject as a query writes it: a bill with its number ('고용보험법 일부개정법률안(의안번호 2200463)'), a
    station as a station ('종각역'), a toll gate ('노포 영업소'), a stop, a bus route ('582번 버스'), a case."""
    if kind == "bill":
        return f"{name}(의안번호 {value})"
    if kind == "station":
        return value if value.endswith("역") else f"{value}역"
    if kind in ("rest", "oil"):
        return spoken_place(value)
    suffix = {"toll": " 영업소", "stop": " 정류장", "route": "번 버스", "case": " 사건"}.get(kind, "")
    return f"{value}{suffix}"


# ------------------------------------------------------------------ tool by tool: the documented endpoints

def _place(what: str, theme: str, param: str | None = None, **kw) -> Ask:
    return Ask(what=what, by="region", param=param, theme=theme, places=True, **kw)


BY_TOOL: dict[str, Ask] = {
    # 경기데이터드림: every listing takes the 시군 itself
    "search_gg_local_currency_merchants": _place("지역화폐 가맹점", "living", "SIGUN_NM", also=("outing",),
                                                 alone=("<s>에서 지역화폐를 쓸 수 있는 가게",)),
    "search_gg_tasty_restaurants": _place("맛집", "outing", "SIGUN_NM"),
    "list_gg_fishing_places": _place("낚시터", "outing", "SIGUN_NM", narrow=True),
    "list_gg_public_libraries": _place("공공도서관", "living", "SIGUN_NM"),
    "list_gg_public_toilets": _place("공중화장실", "living", "SIGUN_NM", also=("outing",)),
    "list_gg_parking_lots": _place("주차장", "living", "SIGUN_NM", also=("outing",),
                                   kinds=("PARKPLC_DIV_NM", {"공영": "공영 주차장", "민영": "민영 주차장"})),
    "list_gg_pharmacies": _place("약국", "living", "SIGUN_NM"),
    "list_gg_bus_stations": _place("버스 정류장", "transit", "SIGUN_NM"),
    "list_gg_child_care_centers": _place("어린이집", "care", "SIGUN_NM",
                                         kinds=("FACLT_KIND_NM", {"국공립": "국공립 어린이집", "민간": "민간 어린이집",
                                                                  "가정": "가정 어린이집", "직장": "직장 어린이집"})),
    "list_gg_job_support_policies": Ask("일자리 지원 정책", by="region", param="REGION_NM", theme="jobs", narrow=True),
    "get_gg_sigun_population": Ask("인구", by="region", param="SIGUN_NM", fact=True,
                                   alone=("<s>의 주민등록 인구", "<s> 인구는 몇 명인가요?", "<s>의 세대 수와 인구")),
    # 서울 열린데이터광장
    "get_seoul_rent_contracts": Ask("전월세 거래", by="region", param="CGG_NM", theme="housing",
                                    kinds=("BLDG_USG", {"아파트": "아파트 전월세 거래", "오피스텔": "오피스텔 전월세 거래",
                                                        "연립다세대": "연립·다세대 전월세 거래"}),
                                    alone=("<s>의 최근 전월세 계약",)),
    "list_seoul_bike_stations": Ask(whole=("서울 따릉이 대여소 목록", "따릉이 대여소 목록"), theme="transit"),
    "search_seoul_cultural_events": Ask(whole=("서울에서 열리는 <CODENAME> 일정",), theme="outing",
                                        say={"CODENAME": {"클래식": "클래식 공연", "콘서트": "콘서트", "연극": "연극",
                                                          "뮤지컬/오페라": "뮤지컬과 오페라", "국악": "국악 공연",
                                                          "무용": "무용 공연", "전시/미술": "전시"}}),
    "search_seoul_parking_lots": Ask("공영주차장", by="address", param="ADDR", theme="living",
                                     alone=("<s>에 있는 공영주차장", "<s> 공영주차장의 운영 시간과 요금")),
    "find_seoul_subway_station_code": Ask("역 코드", by="station", param="STATION_NM", theme="transit", fact=True,
                                          alone=("<s>의 역 코드와 호선",)),
    "search_seoul_subway_stations": Ask("호선", by="station", param="STATION_NM", theme="transit", fact=True,
                                        alone=("<s:은> 몇 호선인가요?", "<s:이> 몇 호선 역인지"), alone_only=True),
    "find_seoul_bus_route": Ask("운행 구간과 배차 간격", by="route", param="BUS_ROUTE_NO", theme="transit", fact=True,
                                alone=("<s:은> 어디서 어디까지 다니나요?", "<s>의 첫차와 막차 시간")),
    "list_tago_cities": Ask(whole=("버스 도착 정보를 볼 수 있는 도시 목록", "버스 정류소 정보가 제공되는 도시 목록"),
                            theme="plain"),  # no motive fits a list of cities: no opener
    # 한국도로공사
    "find_ex_rest_area": Ask("위치", by="rest", param="unitName", theme="drive", fact=True,
                             alone=("<s:은> 어디에 있나요?", "<s>의 위치와 주소")),
    "find_ex_toll_office": Ask("위치", by="toll", param="unitName", theme="drive", fact=True,
                               alone=("<s:은> 어디에 있나요?",)),
    "get_ex_oil_prices": Ask("기름값", by="oil", param="serviceAreaName", theme="drive", fact=True,
                             alone=("<s> 기름값이 지금 얼마인가요?", "<s>의 휘발유와 경유 가격")),
    "list_ex_rest_bestfood": Ask("대표 메뉴", by="rest", param="serviceAreaName", theme="drive",
                                 alone=("<s>에서 파는 대표 음식",)),
    "list_ex_rest_oil_stations": Ask("영업시간과 전화번호", by="oil", param="stdRestNm", theme="drive", fact=True,
                                     alone=("<s:은> 몇 시까지 영업하나요?",)),
    "list_ex_routes": Ask("기점과 종점", by="name", param="routeName", theme="drive", fact=True,
                          alone=("<s:은> 어디서 어디까지인가요?",), whole=("고속도로 노선 목록",)),
    "list_ex_rest_area_base_info": Ask(whole=("고속도로 휴게소 목록",), theme="drive"),
    "list_ex_rest_facilities": Ask(whole=("휴게소 편의시설 목록", "휴게소마다 있는 편의시설"), theme="drive"),
    "get_ex_congestion": Ask(whole=("지금 고속도로 정체 구간", "지금 고속도로에서 막히는 구간이 어디인가요?"),
                             theme="drive"),
    "get_ex_ic_traffic": Ask(whole=("<sumDate> 고속도로 IC별 교통량",), theme="drive"),
    # 한국산업인력공단, HRD-Net, 고용24
    "list_qnet_c_exam_schedules": Ask(whole=("기능사 시험 일정", "올해 기능사 시험은 언제 있나요?"), theme="exam"),
    "list_qnet_e_exam_schedules": Ask(whole=("기사·산업기사 시험 일정",), theme="exam"),
    "list_qnet_mc_exam_schedules": Ask(whole=("기능장 시험 일정",), theme="exam"),
    "list_qnet_pe_exam_schedules": Ask(whole=("기술사 시험 일정", "올해 기술사 시험은 언제 있나요?"), theme="exam"),
    "list_qnet_qualifications": Ask(whole=("<qualgbcd> 종목 목록", "국가자격 종목 목록"), theme="exam"),
    "search_qnet_exam_schedules": Ask(whole=("<implYy> <qualgbCd> 시험 일정",), theme="exam",
                                      say={"qualgbCd": {"T": "국가기술자격"}}),
    "search_hrd_training_courses": Ask(whole=("<srchTraStDt>에 시작하는 내일배움카드 훈련과정",), theme="jobs",
                                       same={"srchTraEndDt": "srchTraStDt"}),
    "search_work24_training_courses": Ask(whole=("고용24에 올라온 <srchTraStDt> 개강 훈련과정",), theme="jobs",
                                          same={"srchTraEndDt": "srchTraStDt"}),
    # 예금보험공사, 금융위원회
    "get_fsc_insured_institution_info": Ask("예금보험 가입 정보", by="insured", param="fncoNm", theme="bank", fact=True,
                                            alone=("<s:이> 예금보험에 가입돼 있는지", "<s:은> 예금자 보호가 되나요?")),
    "get_kdic_bank_management_status": Ask("경영 현황", by="bank", param="dvsnNm", theme="bank", fact=True,
                                           alone=("<s>의 BIS 비율과 순이익", "<s>의 경영 실적과 재무 상태")),
    "get_kdic_investment_firm_management_status": Ask("경영 현황", by="securities", param="dvsnNm", theme="bank", fact=True,
                                                      alone=("<s>의 경영 실적과 재무 상태",)),
    "get_kdic_life_insurer_management_status": Ask("경영 현황", by="life", param="dvsnNm", theme="bank", fact=True,
                                                   alone=("<s>의 경영 실적과 재무 상태",)),
    "get_kdic_nonlife_insurer_management_status": Ask("경영 현황", by="nonlife", param="dvsnNm", theme="bank", fact=True,
                                                      alone=("<s>의 경영 실적과 재무 상태",)),
    "get_kdic_deposit_trend": Ask(whole=("<fncsecDscdNm> 예금 동향", "금융권 예금 동향"), theme="bank",
                                  say={"fncsecDscdNm": {"은행": "은행권", "금융투자": "금융투자업권",
                                                        "생명보험": "생명보험업권", "손해보험": "손해보험업권",
                                                        "저축은행": "저축은행업권"}}),
    "get_kdic_fund_raising_history": Ask(whole=("예금보험기금 조성 내역",), theme="bank"),
    "list_kdic_failed_institutions": Ask("보험사고 처리 내역", by="failed", param="fnccmpNm", theme="bank",
                                         whole=("예금보험 사고가 난 금융회사 목록",)),
    "list_kdic_insured_institutions": Ask(whole=("예금보험에 가입한 <fncsecDscdNm> 목록",), theme="bank",
                                          say={"fncsecDscdNm": {"은행": "은행", "금융투자": "금융투자회사",
                                                                "생명보험": "생명보험사", "손해보험": "손해보험사",
                                                                "저축은행": "저축은행"}}),
    "list_kdic_publications": Ask(whole=("예금보험공사가 발간한 보고서 목록",), theme="bank"),
    # 한국거래소, 금융위원회 시세, OpenDART's company lookup
    "get_krx_kospi_issue_base_info": Ask(whole=("<basDd> 기준 유가증권시장 상장 종목 목록",), theme="invest"),
    "get_krx_kosdaq_issue_base_info": Ask(whole=("<basDd> 기준 코스닥 상장 종목 목록",), theme="invest"),
    "get_krx_konex_issue_base_info": Ask(whole=("<basDd> 기준 코넥스 상장 종목 목록",), theme="invest"),
    "get_stock_price_trend": Ask("주가", by="stock", param="itmsNm", theme="invest", fact=True,
                                 alone=("<s> 주가", "<s>의 최근 주가 흐름")),
    # its records hold the company's listing code too: what a person asks of it (DART's 고유번호 is internal)
    "find_dart_corp_code": Ask("종목코드", by="company", param="corp_name", theme="invest", fact=True,
                               alone=("<s>의 종목코드가 뭔가요?", "<s:은> 종목코드가 몇 번인가요?"), alone_only=True),
    # NEIS: only the lookup by a school's name (the rest take its 행정표준코드)
    "find_neis_school_code": Ask("주소와 연락처", by="school", param="SCHUL_NM", theme="school", fact=True,
                                 alone=("<s:은> 어디에 있나요?",)),
    "search_neis_academies": Ask(whole=("<ATPT_OFCDC_SC_CODE>에 등록된 <ADMST_ZONE_NM> 학원 목록",), theme="school"),
    # 국가법령정보센터: a search term is a name the service's own records give
    "search_current_laws": Ask("시행일과 소관 부처", by="law", param="query", source=("법령명한글", None), theme="law",
                               fact=True, alone=("<s:은> 언제부터 시행됐나요?",)),
    "search_laws_by_effective_date": Ask("개정 연혁", by="law", param="query", source=("법령명한글", None),
                                         theme="law", kinds=("nw", {"1": "개정 연혁"}), always=True),
    "search_admin_rules": Ask("발령 날짜와 소관 부처", by="rule", param="query", source=("행정규칙명", None), theme="law",
                              fact=True, alone=("<s:은> 언제 발령됐고 어느 부처 소관인가요?",), alone_only=True),
    "search_court_precedents": Ask("판례", by="case", param="query", source=("사건명", None), theme="law",
                                   alone=("<s> 판례",)),
    "search_legal_interpretations": Ask("법령해석례", by="law", param="query", source=("안건명", "「([^」]+)」"),
                                        theme="law", alone=("<s> 관련 법령해석례",)),
    "search_local_ordinances": Ask("공포일과 시행일", by="ordinance", param="query", source=("자치법규명", None),
                                   theme="law", fact=True, alone=("<s:은> 언제부터 시행됐나요?",)),
    # 열린국회정보
    "find_assembly_member": Ask("소속 정당과 지역구", by="member", param="HG_NM", theme="politics", fact=True,
                                alone=("<s:은> 어느 정당 소속이고 지역구는 어디인가요?",),
                                whole=("<POLY_NM> 국회의원 명단", "<ORIG_NM> 국회의원")),
    "get_assembly_member_career": Ask("이력", by="member", param="HG_NM", theme="politics", fact=True,
                                      alone=("<s>의 경력",)),
    "get_assembly_member_sns": Ask("SNS 계정", by="member", param="HG_NM", theme="politics", fact=True),
    "list_assembly_members_all_terms": Ask("당선 이력", by="member", param="NAAS_NM", theme="politics", fact=True,
                                           alone=("<s:은> 몇 대 국회에서 당선됐나요?",)),
    "list_assembly_committee_members": Ask("위원 명단", by="committee", param="DEPT_NM", theme="politics"),
    "list_assembly_committees": Ask("위원장과 위원 수", by="committee", param="COMMITTEE_NAME", theme="politics",
                                    fact=True, alone=("<s> 위원장은 누구인가요?",), whole=("국회 <CMT_DIV_NM> 목록",)),
    "list_bill_receipts": Ask(whole=("최근 국회에 접수된 의안 목록", "최근 접수된 의안 가운데 <PPSR_KIND> 의안 목록"),
                              theme="politics",
                              say={"PPSR_KIND": {"의원": "의원이 발의한", "정부": "정부가 제출한",
                                                 "위원장": "위원장이 제안한"}}),
    "list_bill_vote_results": Ask("본회의 표결 결과", by="bill", param="BILL_NO", theme="politics", fact=True,
                                  root="plenary",
                                  alone=("<s:은> 본회의에서 어떻게 표결됐나요?", "<s>의 본회의 찬반 표수"),
                                  whole=("<AGE> 본회의에서 표결한 의안 목록",)),
    "list_plenary_processed_bills": Ask("본회의 처리 결과", by="bill", param="BILL_NO", theme="politics", fact=True,
                                        root="plenary",
                                        alone=("<s:은> 본회의에서 어떻게 처리됐나요?",),
                                        whole=("<AGE> 본회의에서 처리된 법률안 목록",)),
    "search_assembly_bills": Ask("소관 위원회와 처리 결과", by="bill", param="BILL_NO", theme="politics", fact=True,
                                 whole=("<CURR_COMMITTEE> 소관 의안 목록",)),
    "search_member_proposed_bills": Ask("대표발의자", by="bill", param="BILL_NO", theme="politics", fact=True,
                                        alone=("<s:은> 누가 대표발의했나요?",),
                                        whole=("<AGE> <COMMITTEE> 소관 의원 발의 법률안 목록",)),
}

# ------------------------------------------------------------------ the long tail

# 경기도 / 서울 facilities: subject → (what one asks for, theme (and others it is asked beside, after '/'), the aspects a person asks of it beyond where they
# are: O 운영 현황, U 이용 현황, I 점검 결과, C 연도별 수, G 프로그램, B 새로 등록되거나 폐업한 곳과 인허가)
LOCAL: dict[str, tuple[str, str, str]] = {
    "senior_welfare_facilities": ("노인복지시설", "care", "OIG"),
    "disabled_welfare_facilities": ("장애인복지시설", "care", "OI"),
    "child_welfare_facilities": ("아동복지시설", "care", "OI"),
    "community_child_centers": ("지역아동센터", "care", "OG"),
    "senior_centers": ("경로당", "care", "OG"),
    "public_health_centers": ("보건소", "care", "OG"),
    "medical_institutions": ("의료기관", "care", "C"),
    "emergency_hospitals": ("응급의료기관", "care", ""),
    "youth_training_facilities": ("청소년수련시설", "outing", "OUIG"),
    "public_sports_facilities": ("공공체육시설", "outing", "OUG"),
    "sports_parks": ("생활체육공원", "outing", "UG"),
    "urban_parks": ("도시공원", "outing", "G"),
    "playgrounds": ("어린이 놀이터", "outing", "I"),
    "tourist_attractions": ("관광지", "outing", "U"),
    "cultural_heritages": ("문화재", "outing", ""),
    "museums": ("박물관·미술관", "outing", "GU"),
    "performance_halls": ("공연장", "outing", "GI"),
    "pet_playgrounds": ("반려견 놀이터", "outing", "U"),
    "mineral_springs": ("약수터", "outing", "I"),
    "hiking_trails": ("등산로", "outing", ""),
    "campgrounds": ("캠핑장", "outing", "OU"),
    "model_restaurants": ("모범음식점", "outing", ""),
    "traditional_markets": ("전통시장", "outing", ""),
    "lodging_businesses": ("숙박업소", "business", "IB"),
    "food_service_businesses": ("음식점", "business", "IB"),
    "large_stores": ("대규모 점포", "business", "B"),
    "social_enterprises": ("사회적기업", "business", "B"),
    "cooperatives": ("협동조합", "business", "B"),
    "industrial_complexes": ("산업단지", "business", ""),
    "knowledge_industry_centers": ("지식산업센터", "business", ""),
    "fair_price_shops": ("착한가격업소", "living/outing", ""),
    "small_libraries": ("작은도서관", "living", "OUG"),
    "lifelong_learning_centers": ("평생학습기관", "living", "GU"),
    "community_service_centers": ("주민자치센터", "living", "G"),
    "veterinary_clinics": ("동물병원", "living", "B"),
    "recycling_centers": ("재활용센터", "living", ""),
    "clothing_bins": ("의류수거함", "living", ""),
    "public_restrooms": ("공중화장실", "living/outing", ""),
    "public_wifi": ("공공 와이파이", "living", ""),
    "heat_shelters": ("무더위쉼터", "safety", ""),
    "cold_shelters": ("한파쉼터", "safety", ""),
    "civil_defense_shelters": ("민방위 대피소", "safety", ""),
    "earthquake_evacuation_sites": ("지진 대피 장소", "safety", ""),
    "fire_hydrants": ("소화전", "safety", "I"),
    "cctv_installations": ("CCTV", "safety", "C"),
    "security_lights": ("보안등", "safety", ""),
    "street_lights": ("가로등", "safety", ""),
    "school_zones": ("어린이보호구역", "safety", ""),
    "senior_zones": ("노인보호구역", "safety", ""),
    "accident_hotspots": ("교통사고 다발 지역", "safety", ""),
    "ev_charging_stations": ("전기차 충전소", "transit", "UC"),
    "hydrogen_stations": ("수소 충전소", "transit", "O"),
    "bike_rental_stations": ("공공자전거 대여소", "transit", "U"),
    "bike_parking_lots": ("자전거 보관소", "transit", ""),
    "taxi_stands": ("택시 승강장", "transit", ""),
    "towing_lots": ("견인 차량 보관소", "transit", ""),
    "parking_enforcement": ("불법 주정차 단속 구역", "transit", ""),
    "apartment_complexes": ("공동주택", "housing", "C"),
    "rental_housing": ("임대주택", "housing", "C"),
    "vacant_houses": ("빈집", "housing", "C"),
}
# An aspect of a facility → (its flag, what is asked after '<region>의', how it reads on its own); '{x}' is
# the facility. The list ('status'), where they are and the guide to them are asked of every facility.
LOCAL_ASPECTS: dict[str, tuple[str, str, str]] = {
    "status": ("", "{x}", "<s>에 있는 {x}"),
    "locations": ("", "{x} 위치", "<s>에 있는 {x} 위치"),
    "operation_status": ("O", "{x} 운영 현황", "<s>에 있는 {x}의 운영 현황"),
    "usage_statistics": ("U", "{x} 이용 현황", "<s>에 있는 {x}의 이용 현황"),
    "inspection_results": ("I", "{x} 점검 결과", "<s>에 있는 {x}의 점검 결과"),
    "yearly_statistics": ("C", "연도별 {x} 수", "<s>의 연도별 {x} 수"),
    "programs": ("G", "{x} 프로그램", "<s>에 있는 {x}에서 하는 프로그램"),
    "new_registrations": ("B", "새로 등록된 {x}", "<s>에 새로 등록된 {x}"),
    "closures": ("B", "폐업한 {x}", "<s>에서 폐업한 {x}"),
    "licenses": ("B", "{x} 인허가 내역", "<s>의 {x} 인허가 내역"),
}

# The Assembly's long tail about a member: subject → (what is asked of them, how it reads on its own)
MEMBER: dict[str, tuple[str, str]] = {
    "member_bills": ("발의 법률안", "<s:이> 대표발의한 법률안"),
    "plenary_votes": ("본회의 표결 기록", "<s>의 본회의 표결 참여 기록"),
    "committee_activities": ("상임위원회 활동", "<s>의 상임위원회 활동 내역"),
    "research_groups": ("연구단체 활동", "<s:이> 참여하는 연구단체"),
    "policy_materials": ("정책자료", "<s:이> 낸 정책자료"),
    "press_releases": ("보도자료", "<s:이> 낸 보도자료"),
    "activity_reports": ("의정활동 보고", "<s>의 의정활동 보고서"),
    "political_funds": ("정치자금 내역", "<s>의 정치자금 수입과 지출"),
    "overseas_trips": ("해외 출장 내역", "<s:이> 다녀온 해외 출장"),
    "research_requests": ("입법조사 요청 내역", "<s:이> 요청한 입법조사"),
    "minutes_speeches": ("회의 발언", "<s:이> 회의에서 한 발언"),
    "audit_questions": ("국정감사 질의", "<s:이> 국정감사에서 한 질의"),
    "government_interpellations": ("대정부질문", "<s:이> 한 대정부질문"),
    "five_minute_speeches": ("5분 자유발언", "<s:이> 한 5분 자유발언"),
    "written_questions": ("서면질의", "<s:이> 낸 서면질의"),
}
MEMBER_ASPECTS = {"list": "{x}", "status": "{x}", "details": "{x}", "search": "{x}", "recent": "최근 {x}"}
# … about a bill (said with its number): subject → (what is asked of it, how it reads on its own)
BILL: dict[str, tuple[str, str]] = {
    "bill_review_progress": ("심사 경과", "<s:은> 지금 어디까지 심사됐나요?"),
    "bill_referrals": ("위원회 회부 내역", "<s:은> 어느 위원회에 회부됐나요?"),
    "bill_public_hearings": ("공청회 개최 내역", "<s>에 대해 열린 공청회"),
    "bill_legislative_notices": ("입법예고", "<s>의 입법예고 기간"),
    "bill_cost_estimates": ("비용추계", "<s>의 비용추계 결과"),
    "bill_review_reports": ("검토보고서", "<s>에 대한 전문위원 검토보고서"),
    "bill_amendments": ("수정안", "<s>에 제출된 수정안"),
}
BILL_ASPECTS = {"list": "{x}", "status": "{x}", "details": "{x}", "search": "{x}", "history": "{x}"}

# data.go.kr by agency: subject → (the subject's kind, what is asked, theme, statistics, yearly) — the last two
# the asks of the 통계 and 연도별 editions, or '' where a person asks neither of it
DATAGOKR: dict[str, tuple[str, str, str, str, str]] = {
    # 국토교통부
    "bus_stops": ("region", "버스 정류소", "transit", "", ""),
    "road_traffic_volumes": ("region", "도로 교통량", "stats", "도로 교통량 통계", "연도별 도로 교통량"),
    "traffic_accidents": ("region", "교통사고 발생 현황", "stats", "교통사고 통계", "연도별 교통사고 발생 건수"),
    "vehicle_registrations": ("region", "자동차 등록 현황", "stats", "자동차 등록 통계", "연도별 자동차 등록 대수"),
    "railway_stations": ("region", "철도역", "transit", "", ""),
    "parking_lots": ("region", "주차장", "living", "", ""),
    "road_constructions": ("region", "도로 공사 현황", "transit", "", ""),
    "transit_ridership": ("region", "대중교통 이용 현황", "stats", "대중교통 이용 통계", "연도별 대중교통 이용객 수"),
    "taxi_licenses": ("region", "택시 면허 현황", "stats", "", ""),
    "vehicle_inspection_centers": ("region", "자동차 검사소", "living", "", ""),
    # 행정안전부
    "resident_populations": ("region", "주민등록 인구", "stats", "주민등록 인구 통계", "연도별 주민등록 인구"),
    "local_finances": ("region", "재정 현황", "stats", "", "연도별 재정 현황"),
    "local_taxes": ("region", "지방세 징수 현황", "stats", "지방세 통계", "연도별 지방세 징수액"),
    "administrative_dongs": ("region", "행정복지센터", "living", "", ""),
    "local_festivals": ("region", "지역 축제", "outing", "", ""),
    "civil_complaints": ("region", "민원 처리 현황", "stats", "민원 처리 통계", ""),
    "open_public_facilities": ("region", "주민에게 개방하는 공공시설", "living", "", ""),
    "community_credit_unions": ("region", "새마을금고", "living", "", ""),
    "local_officials": ("region", "지방 공무원 현황", "stats", "", "연도별 지방 공무원 수"),
    "local_jobs": ("region", "일자리 정보", "jobs", "", ""),
    "population_migration": ("region", "인구 이동 현황", "stats", "전입·전출 통계", "연도별 인구 이동 현황"),
    # 금융위원회
    "corporate_profiles": ("company", "기업 개요", "invest", "", ""),
    "stock_issuances": ("company", "주식 발행 내역", "invest", "", ""),
    "bond_issuances": ("company", "채권 발행 내역", "invest", "", ""),
    "dividends": ("company", "배당 내역", "invest", "", "연도별 배당 내역"),
    "corporate_financials": ("company", "주요 재무 정보", "invest", "", "연도별 주요 재무 정보"),
    "foreign_investments": ("company", "외국인 투자 현황", "invest", "", ""),
    # 교육부
    "school_profiles": ("school", "학교 개요", "school", "", ""),
    "school_meals": ("school", "급식 정보", "school", "", ""),
    "student_counts": ("school", "학생 수", "school", "", "연도별 학생 수"),  # '학생 수 통계' names a dataset
    "teacher_counts": ("school", "교원 수", "school", "", "연도별 교원 수"),
    "after_school_programs": ("school", "방과후학교 프로그램", "school", "", ""),
    "school_facilities": ("school", "시설 현황", "school", "", ""),
    "career_education": ("school", "진로 교육 프로그램", "school", "", ""),
    "school_budgets": ("school", "예산 현황", "school", "", "연도별 예산"),
    "bullying_prevention": ("school", "학교 폭력 예방 활동", "school", "", ""),
    "scholarships": ("school", "장학금 지급 현황", "school", "", ""),
    # 법제처
    "law_amendments": ("law", "개정 이력", "law", "", ""),
    "law_annexes": ("law", "별표와 서식", "law", "", ""),
    "legislative_notices": ("law", "입법예고", "law", "", ""),
    "interpretation_requests": ("law", "법령 해석을 요청한 사례", "law", "", ""),  # not '… 요청 내역', a dataset's name
    "english_translations": ("law", "영문 번역본", "law", "", ""),
    "enforcement_schedules": ("law", "시행 일정", "law", "", ""),
    "regulations": ("law", "관련 규제", "law", "", ""),
    "jurisdictions": ("law", "소관 부처", "law", "", ""),
    # 국회사무처
    "member_support_groups": ("member", "후원회", "politics", "", ""),
    "member_assets": ("member", "재산 공개 내역", "politics", "", ""),
    "member_legislation": ("member", "입법 활동", "politics", "", ""),
    "district_projects": ("member", "지역구 사업", "politics", "", ""),
    "member_staff": ("member", "보좌진", "politics", "", ""),
    "member_side_jobs": ("member", "겸직 내역", "politics", "", ""),
    "member_attendance": ("member", "출석 현황", "politics", "출석 통계", ""),
    "member_seminars": ("member", "세미나 개최 내역", "politics", "", ""),
}
DATAGOKR_PLAIN = ("list", "search", "status", "details", "by_region", "by_period", "by_date")
_AGENCIES = ("molit", "mois", "fsc", "moe", "moleg", "nas")
_NAME = re.compile(r"^(?:list|get|search|find)_(?P<family>[a-z]+)_(?P<rest>.+)$")
_ASPECT_NAMES = sorted({*LOCAL_ASPECTS, *MEMBER_ASPECTS, *BILL_ASPECTS, *DATAGOKR_PLAIN, "statistics", "yearly"},
                       key=len, reverse=True)


def _parts(tool: Tool) -> tuple[str, str, str] | None:
    """(family, subject, aspect) of a long-tail tool's name: 'get_gg_senior_centers_locations' → (gg,
    senior_centers, locations)."""
    match = _NAME.match(tool.name)
    if match is None:
        return None
    rest = match["rest"]
    aspect = next((a for a in _ASPECT_NAMES if rest.endswith(f"_{a}")), None)
    return None if aspect is None else (match["family"], rest[: -len(aspect) - 1], aspect)


def _long_tail(tool: Tool) -> Ask | None:
    parts = _parts(tool)
    if parts is None:
        return None
    family, subject, aspect = parts
    if family in ("gg", "seoul") and subject in LOCAL and aspect in LOCAL_ASPECTS:
        noun, themes, flags = LOCAL[subject]
        theme, *also = themes.split("/")
        flag, what, alone = LOCAL_ASPECTS[aspect]
        if flag and flag not in flags:
            return None
        # an aspect a person asks of a place's services keeps its theme (a program, where they are); the
        # administrative ones (운영, 이용, 점검, 연도별 수, 등록과 폐업) are asked for a report
        return Ask(what.replace("{x}", noun), by="region", theme=theme if flag in ("", "G") else "stats",
                   also=tuple(also) if not flag else (), places=aspect == "status", alone=(alone.replace("{x}", noun),), fact=flag in ("U", "C", "O"),
                   root=subject, pairs=not flag)
    if family == "assembly" and subject in MEMBER and aspect in MEMBER_ASPECTS:
        what, alone = MEMBER[subject]
        what = MEMBER_ASPECTS[aspect].replace("{x}", what)
        return Ask(what, by="member", theme="politics", root=subject,
                   alone=(alone,) if aspect != "recent" else (f"<s>의 {what}",))
    if family == "assembly" and subject in BILL and aspect in BILL_ASPECTS:
        what, alone = BILL[subject]
        return Ask(what, by="bill", theme="politics", fact=True, alone=(alone,), root=subject)
    if family in _AGENCIES and subject in DATAGOKR:
        kind, what, theme, statistics, yearly = DATAGOKR[subject]
        said = what if aspect in DATAGOKR_PLAIN else statistics if aspect == "statistics" else \
            yearly if aspect == "yearly" else ""
        if not said:
            return None
        return Ask(said, by=kind, theme=theme, fact=aspect in ("statistics", "yearly") or kind == "law",
                   places=kind == "region" and theme in ("living", "transit", "outing") and aspect in DATAGOKR_PLAIN,
                   root=subject)
    return None


def ask_of(tool: Tool) -> Ask | None:
    """The ask the offline generator words for `tool`; None for a tool it does not draw."""
    if tool.name in BY_TOOL:
        ask = BY_TOOL[tool.name]
        return ask if ask.root else _rooted(ask, tool.name)
    return None if tool.spec.real else _long_tail(tool)


def themes(ask: Ask) -> tuple[str, ...]:
    return (ask.theme, *ask.also)


def _rooted(ask: Ask, root: str) -> Ask:
    return replace(ask, root=root)


def subject_param(tool: Tool, ask: Ask) -> ParamSpec | None:
    """The parameter that carries the ask's subject: the one the ask names, else the first whose label names
    a subject of its kind ('시군명', '의원 성명', '의안번호')."""
    if ask.by is None:
        return None
    if ask.param is not None:
        try:
            return tool.spec.param(ask.param)
        except KeyError:
            return None
    labels = SUBJECT_LABELS.get(ask.by, set())
    return next((p for p in tool.spec.params if param_label(p) in labels), None)


# ------------------------------------------------------------------ openers, by theme

# A line a person may start with, by what is asked: a motive that fits it (no '민원 답변' before 맛집) — no word
# of them a value a service returns. A theme with no line of its own ('plain') gets none.
OPENERS: dict[str, tuple[str, ...]] = {
    "outing": ("주말에 나들이를 가려고 해요.", "가족 여행 계획을 세우고 있어요.", "친구들이랑 놀러 갈 곳을 찾고 있어요."),
    "drive": ("장거리 운전을 앞두고 있어요.", "고속도로로 출장을 가야 해요.", "명절에 고향에 내려갈 예정이에요."),
    "living": ("이사할 동네를 알아보는 중입니다.", "새 동네로 옮겨 와서 주변을 익히는 중이에요.", "동네 생활 안내문을 만들고 있어요."),
    "care": ("가족 돌봄 문제로 알아보는 중이에요.", "복지 상담 자료를 준비하고 있어요."),
    "safety": ("동네 안전 지도를 만들고 있어요.", "주민 안전 교육 자료를 준비하고 있어요."),
    "housing": ("집을 알아보는 중이에요.", "살 집을 옮기려고 준비 중이에요."),
    "business": ("창업할 자리를 알아보고 있어요.", "상권 분석 자료를 만들고 있습니다."),
    "jobs": ("일자리를 알아보고 있어요.", "재취업을 준비하고 있어요."),
    "exam": ("자격증 시험을 준비하고 있어요.", "올해 자격증을 하나 따 보려고 해요."),
    "school": ("아이 학교를 알아보고 있어요.", "학부모 모임에 가져갈 자료를 모으고 있어요.", "진학 상담을 준비하고 있어요."),
    "politics": ("의정 활동을 취재하고 있습니다.", "시민단체 모니터링 자료를 만들고 있습니다.", "국회 소식을 챙겨 보는 중이에요."),
    "law": ("계약서를 검토하다가 확인할 게 생겼어요.", "관련 법령을 공부하는 중이에요.", "상담 전에 미리 확인해 두려고 합니다."),
    "invest": ("투자 검토를 하고 있어요.", "주식 공부를 하면서 찾아보는 중이에요.", "재무 분석 과제를 하고 있어요."),
    "bank": ("예금을 맡길 곳을 알아보는 중이에요.", "금융회사 건전성을 비교해 보려고 해요."),
    "stats": ("보고서에 넣을 통계를 찾고 있어요.", "지역 현황 자료를 정리하고 있습니다.", "발표 자료에 넣으려고 해요."),
    "transit": ("출퇴근 길을 바꿔 보려고 해요.", "처음 가는 길이라 미리 알아보고 있어요."),
}
