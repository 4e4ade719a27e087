"""The long tail of uniform dataset APIs, as a deterministic spec.

경기데이터드림, 서울 열린데이터광장, 열린국회정보 and data.go.kr each expose hundreds of datasets behind one
envelope: a SERVICE (or API code, or provider path) over a flat table filtered by a few columns. This
module fixes ~2,200 such datasets — Korean titles from theme × subject word lists, English tool names
from parallel word lists, 4–12 columns drawn from archetypes that carry the world's SHARED entities
(시군구 codes, 국회의원, 의안, 법인, 학교, 법령) — so the simulator can answer them and the catalog can
document them (`real: false`: no live endpoint stands behind a generated dataset).

Entity columns are named as real portals name them: per dataset, from that dataset's own naming stream,
one of several wire names and Korean labels in the family's style (법인등록번호 is `crno`, `jurirNo` or
`corpRegNo`), sometimes a generic name (`CODE`, `NM`, `code`) that means another entity elsewhere. The
catalog format of a column is its shape (`digits7`: 의안번호 and 표준학교코드 alike); which entity a
column carries is the simulator's truth (`Arch.entity`, table annotations), never exported.

Everything is a pure function of the word lists and named random streams (`sim.world.rng.stream`);
the spec does not depend on the world seed, so the catalog files are the same for every world.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from sim.world.rng import stream

SPEC_SEED = 20260130  # the spec's own stream seed: catalog files must not change with the world seed


@dataclass(frozen=True)
class Arch:
    """A column as one dataset documents it: wire name, Korean label, value kind, the entity it carries
    (the simulator's truth, never exported), the table column holding its values, filter rules."""

    name: str
    label: str
    kind: str  # generator kind in sim.longtail_service
    column: str  # column of the family's wide table (entity roles share one column per kind)
    entity: str | None = None
    pattern: str | None = None  # Bind pattern when the column is a filter
    format: str | None = None  # catalog format: the value's shape as a portal documents it, never the entity
    op: str = "eq"
    integer: bool = False


@dataclass(frozen=True)
class Role:
    """An entity-carrying column as portals of one wire style name it: the names and Korean labels a
    dataset may give it (its platform's usual name first), and the generic name it may get instead."""

    kind: str
    entity: str | None
    wires: tuple[str, ...]
    labels: tuple[str, ...]
    pattern: str | None = None
    format: str | None = None  # a shape format (kopa.catalog.formats), shared by every entity of that shape
    op: str = "eq"
    generic: str | None = None  # "code" | "no" | "name": the generic-name class this column may fall in


def _roles(*items: Role) -> dict[str, Role]:
    return {r.kind: r for r in items}


def _r(kind: str, entity: str | None, wires: str, labels: str, pattern: str | None = None, fmt: str | None = None,
       op: str = "eq", generic: str | None = None) -> Role:
    return Role(kind, entity, tuple(wires.split()), tuple(labels.split("|")), pattern, fmt, op, generic)


# Entity roles per group. Real portals name one entity many ways (법인등록번호 is `crno`, `jurirNo`,
# `corpRegNo`; 시군구코드 is `SIGUN_CD`, `SGG_CD`, `signguCode`), and some datasets name it generically
# (`CODE`, `NM`). Entities are the names the real platforms' tables annotate; formats are shapes only.
ENTITY_ROLES: dict[str, dict[str, Role]] = {
    "gg": _roles(
        _r("gg_sigun_cd", "sigungu_code", "SIGUN_CD SIGUNGU_CD SGG_CD SIGUN_CODE CTY_CD", "시군코드|시군구코드|시군 행정코드",
           r"41\d{3}", "digits5", generic="code"),
        _r("gg_sigun_nm", "sigungu_name", "SIGUN_NM SIGUNGU_NM SGG_NM SIGUN_NAME CTY_NM", "시군명|시군구명|시군 이름",
           generic="name")),
    "seoul": _roles(
        _r("seoul_cgg_cd", "sigungu_code", "CGG_CD GU_CD SGG_CD ATDRC_CD SIGNGU_CD", "자치구코드|구코드|시군구코드",
           r"11\d{3}", "digits5", generic="code"),
        _r("seoul_cgg_nm", "sigungu_name", "CGG_NM GU_NM SGG_NM ATDRC_NM SIGNGU_NM", "자치구명|구명|자치구 이름",
           generic="name")),
    "member": _roles(
        _r("mona_cd", "mona_cd", "MONA_CD NAAS_CD MEMBER_CD ASSEM_MEM_CD", "국회의원코드|의원코드|의원 식별코드",
           r"[0-9A-Z]{8}", "alnum8", generic="code"),
        _r("member_name", "member_name", "HG_NM NAAS_NM MEMBER_NM ASSEM_MEM_NM", "의원명|국회의원명|의원 성명",
           generic="name"),
        _r("party_name", None, "POLY_NM PARTY_NM PLPT_NM", "정당명|소속정당명")),
    "bill": _roles(
        _r("bill_id", "bill_id", "BILL_ID BL_ID BILL_KEY", "의안ID|의안 식별번호", r"PRC_[A-Z0-9]{29,30}", "prc_alnum",
           generic="code"),
        _r("bill_no", "bill_no", "BILL_NO BILL_NUM BL_NO", "의안번호|의안 번호", r"\d{7}", "digits7", generic="no"),
        _r("bill_name", "bill_name", "BILL_NAME BILL_NM BL_NM", "의안명|의안 제목", op="contains", generic="name")),
    "region": _roles(
        _r("sigungu_cd", "sigungu_code", "sigunguCd sggCd signguCode sigunCd lawdCd", "시군구코드|시군구 행정코드|지역코드",
           r"\d{5}", "digits5", generic="code"),
        _r("sigungu_nm", "sigungu_name", "sigunguNm sggNm signguNm sigunNm", "시군구명|지역명|행정구역명",
           generic="name")),
    "corp": _roles(
        _r("jurir_no", "jurir_no", "crno jurirNo corpRegNo lgprRegNo", "법인등록번호|법인번호", r"\d{13}", "digits13",
           generic="no"),
        _r("corp_name", "corp_name", "corpNm corpName entrprsNm bzentyNm", "법인명|기업명|회사명", op="contains",
           generic="name"),
        _r("stock_code", "stock_code", "srtnCd stckCd shrtnCode isuSrtCd", "단축코드|종목코드|주식 단축코드", r"\d{6}",
           "digits6", generic="code")),
    "school": _roles(
        _r("atpt_code", "atpt_code", "atptOfcdcScCode eduOfcCd ofcdcCode atptCd", "시도교육청코드|교육청코드",
           r"[A-Z]\d{2}", "letter_digits2", generic="code"),
        _r("school_code", "school_code", "sdSchulCode schulCode schoolCode schlCd", "표준학교코드|학교코드|행정표준 학교코드",
           r"\d{7}", "digits7", generic="code"),
        _r("school_name", "school_name", "schulNm schoolNm schoolName schlNm", "학교명|학교 이름", op="contains",
           generic="name")),
    "law": _roles(
        _r("law_id", "law_id", "lawId lsId lawCd lawCode", "법령ID|법령 식별번호|법령코드", r"\d{6}", "digits6",
           generic="code"),
        _r("law_name", "law_name", "lawNm lsNm lawName", "법령명|법령명(한글)", op="contains", generic="name")),
    "dmember": _roles(
        _r("mona_cd", "mona_cd", "monaCd naasCd memberCd assemMemCd", "국회의원코드|의원코드", r"[0-9A-Z]{8}", "alnum8",
           generic="code"),
        _r("member_name", "member_name", "hgNm naasNm memberNm assemMemNm", "의원명|국회의원명|의원 성명",
           generic="name")),
}

# Generic names a dataset may use instead, per wire style: the same name means different entities in
# different datasets (CODE is a 시군코드 here, a 국회의원코드 there).
GENERIC_WIRES: dict[str, dict[str, tuple[str, ...]]] = {
    "upper": {"code": ("CODE", "CD"), "no": ("NO",), "name": ("NM",)},
    "camel": {"code": ("code",), "no": ("no",), "name": ("name",)}}
GENERIC_SHARE = 0.12  # chance that a column with a generic class gets its generic name
USUAL_SHARE = 0.5  # chance that a column gets its platform's usual name (else one of the variants)


def name_roles(family: str, key: str, roles: list[Role], style: str) -> list[Arch]:
    """The dataset's entity columns: each role named and labelled by the dataset's own naming stream.

    Every role draws the same three numbers whatever the branch, so one role's naming never shifts
    another's; a name already used in the dataset falls back to the role's next free name."""
    rng = stream(SPEC_SEED, "longtail-naming", f"{family}:{key}")
    taken: set[str] = set()
    out = []
    for role in roles:
        generic_u, wire_u, label_u = rng.random(3).tolist()
        generic = GENERIC_WIRES[style].get(role.generic or "", ())
        if generic and generic_u < GENERIC_SHARE:
            first = generic[int(wire_u * len(generic))]
        elif wire_u < USUAL_SHARE or len(role.wires) == 1:
            first = role.wires[0]
        else:
            first = role.wires[1 + int((wire_u - USUAL_SHARE) / (1 - USUAL_SHARE) * (len(role.wires) - 1))]
        name = next(w for w in (first, *role.wires) if w not in taken)
        taken.add(name)
        label = role.labels[int(label_u * len(role.labels))]
        out.append(Arch(name, label, role.kind, role.kind, role.entity, role.pattern, role.format, role.op))
    return out


# Plain archetypes (no entity) per case style: UPPER_SNAKE for the portals, camelCase for data.go.kr.
_PLAIN = (
    # (UPPER, camel, label, kind, integer)
    ("FACLT_NM", "fcltyNm", "시설명", "facility_name", False),
    ("REFINE_ROADNM_ADDR", "rdnmadr", "소재지도로명주소", "road_addr", False),
    ("REFINE_LOTNO_ADDR", "lnmadr", "소재지지번주소", "lot_addr", False),
    ("REFINE_WGS84_LAT", "latitude", "위도", "lat", False),
    ("REFINE_WGS84_LOGT", "longitude", "경도", "lon", False),
    ("TELNO", "phoneNumber", "전화번호", "phone", False),
    ("DATA_STD_DE", "referenceDate", "데이터기준일자", "date", False),
    ("OPEN_DE", "openDate", "개설일자", "date2", False),
    ("INST_NM", "institutionNm", "관리기관명", "institution", False),
    ("DIV_NM", "seNm", "구분명", "division", False),
    ("OPERT_STATE_NM", "operSttus", "운영상태", "state", False),
    ("PSN_CAPA", "capacity", "정원(명)", "count", True),
    ("USE_CNT", "useCnt", "이용건수", "count2", True),
    ("TOT_AMT", "totAmt", "총금액(원)", "amount", True),
    ("AREA", "ar", "면적(㎡)", "area", True),
    ("STD_YY", "stdrYear", "기준연도", "year", False),
    ("HMPG_ADDR", "homepageUrl", "홈페이지주소", "url", False),
    ("RM", "rm", "비고", "remark", False),
)
# A dataset of records (a filing, a vote, a statistic) documents no address, coordinates, capacity or
# floor area: its rows are named by a title and dated by registration. Real portals keep the two apart
# (국회의원 정치자금 has no 면적), and a question about a record must not ask for a facility's columns.
_PLAIN_RECORD = (
    ("SJ", "sj", "제목", "title", False),
    ("DATA_STD_DE", "referenceDate", "데이터기준일자", "date", False),
    ("REG_DE", "regDt", "등록일자", "date2", False),
    ("INST_NM", "institutionNm", "관리기관명", "institution", False),
    ("DIV_NM", "seNm", "구분명", "division", False),
    ("CNT", "cnt", "건수", "count2", True),
    ("TOT_AMT", "totAmt", "총금액(원)", "amount", True),
    ("STD_YY", "stdrYear", "기준연도", "year", False),
    ("RM", "rm", "비고", "remark", False),
)
DATE_FILTER = {"DATA_STD_DE": r"\d{8}", "referenceDate": r"\d{8}", "STD_YY": r"\d{4}", "stdrYear": r"\d{4}"}
# data.go.kr subjects whose rows are places (a stop, a branch, a school), and what one such place is
# called: they get the facility columns, and rows are named '<stem> <place>' (한빛 지점).
_DATAGOKR_PLACES = {"버스정류소": "버스정류소", "철도역": "역", "주차장": "주차장", "자동차 검사소": "자동차검사소",
                    "금융회사 점포": "지점", "학교 기본정보": "학교", "학교 시설": "학교", "공공시설 개방": "체육관",
                    "새마을 금고": "새마을금고", "행정동 현황": "행정복지센터"}


def plain_archs(style: str, record: bool = False) -> list[Arch]:
    """Plain archetypes in `style` ("upper" or "camel"), in a fixed order: a place's, or a record's."""
    out = []
    for upper, camel, label, kind, integer in (_PLAIN_RECORD if record else _PLAIN):
        name = upper if style == "upper" else camel
        fmt = "yyyymmdd" if kind == "date" else ("yyyy" if kind == "year" else None)
        op = "contains" if kind in ("facility_name", "title", "road_addr") else "eq"
        out.append(Arch(name, label, kind, name, None, DATE_FILTER.get(name), fmt, op, integer))
    return out


# Subjects: Korean | English snake | CamelCase abbreviation (real portal style).
_SUBJECTS_LOCAL = """\
노인복지시설|senior_welfare_facilities|NrsgFclty
장애인복지시설|disabled_welfare_facilities|DsbrWlfrFclty
아동복지시설|child_welfare_facilities|ChldWlfrFclty
지역아동센터|community_child_centers|RegnChldCntr
경로당|senior_centers|SenirCntr
청소년수련시설|youth_training_facilities|YouthTrngFclty
공공체육시설|public_sports_facilities|PblcSprtsFclty
생활체육공원|sports_parks|LifeSprtsPark
도시공원|urban_parks|CityPark
어린이놀이시설|playgrounds|ChldPlayFclty
공공와이파이|public_wifi|PublicWifi
무더위쉼터|heat_shelters|HeatShltr
한파쉼터|cold_shelters|ColdShltr
민방위대피시설|civil_defense_shelters|CvlDfnsShltr
지진옥외대피장소|earthquake_evacuation_sites|EqkEvcPlc
소방용수시설|fire_hydrants|FireWtrFclty
CCTV 설치|cctv_installations|CctvInstl
보안등|security_lights|ScrtyLght
가로등|street_lights|StrtLght
전기차충전소|ev_charging_stations|ElctcCarChrgSttn
수소충전소|hydrogen_stations|HydrgnChrgSttn
공영자전거 대여소|bike_rental_stations|BcyclRentPlc
자전거보관소|bike_parking_lots|BcyclStrgPlc
택시승강장|taxi_stands|TaxiStnd
어린이보호구역|school_zones|ChldPrtcZone
노인보호구역|senior_zones|SenirPrtcZone
교통사고 다발지역|accident_hotspots|TrfcAcdntArea
불법주정차 단속|parking_enforcement|IlglParkngCrkdn
견인차량 보관소|towing_lots|TowVhclStrg
식품접객업소|food_service_businesses|FoodSvcBsns
모범음식점|model_restaurants|ExmplRstrnt
착한가격업소|fair_price_shops|GoodPrceShop
전통시장|traditional_markets|TrdtnMrkt
대규모점포|large_stores|LrgScaleStore
숙박업소|lodging_businesses|LdgngBsns
관광지|tourist_attractions|TursmPlc
문화재|cultural_heritages|CltrHrtg
박물관 미술관|museums|MusmArtGlry
공연장|performance_halls|PrfmncHall
작은도서관|small_libraries|SmallLbrry
평생학습기관|lifelong_learning_centers|LflngLrnngInst
주민자치센터|community_service_centers|ResdntCntr
보건소|public_health_centers|PblcHlthCntr
의료기관|medical_institutions|MdclInst
응급의료기관|emergency_hospitals|EmgncyMdclInst
동물병원|veterinary_clinics|AnmlHsptl
반려동물 놀이터|pet_playgrounds|PetPlygrnd
재활용센터|recycling_centers|RcyclCntr
의류수거함|clothing_bins|ClthsBin
공중화장실|public_restrooms|PblcRstrm
약수터|mineral_springs|MnrlSprng
등산로|hiking_trails|HkngTrl
캠핑장|campgrounds|CampngPlc
공동주택|apartment_complexes|AptCmplx
임대주택|rental_housing|RentHsng
빈집|vacant_houses|VcntHouse
산업단지|industrial_complexes|IndstCmplx
지식산업센터|knowledge_industry_centers|KnwldgIndstCntr
사회적기업|social_enterprises|SclEntrprs
협동조합|cooperatives|Cprtv
"""

_KINDS_LOCAL = """\
현황|status|Stus|list
위치 정보|locations|LcInfo|get
운영 현황|operation_status|OpertStus|get
이용 현황|usage_statistics|UseStus|get
지정 현황|designations|AppnStus|list
인허가 정보|licenses|LcnsInfo|list
점검 결과|inspection_results|InspctRslt|list
연도별 통계|yearly_statistics|YyStats|get
프로그램 정보|programs|PrgrmInfo|list
신규 등록 현황|new_registrations|NewRegStus|list
폐업 현황|closures|ClsbizStus|list
안내 정보|guide_information|GuidInfo|get
"""

_SUBJECTS_ASSEMBLY = """\
국회의원 발의법률안|member_bills|MemberBill
국회의원 본회의 표결|plenary_votes|PlenaryVote
국회의원 상임위 활동|committee_activities|CmitAct
국회의원 연구단체|research_groups|RschGroup
국회의원 정책자료|policy_materials|PolicyData
국회의원 보도자료|press_releases|PressRel
국회의원 의정활동 보고|activity_reports|ActReport
국회의원 정치자금|political_funds|PolFund
국회의원 해외출장|overseas_trips|OverseaTrip
국회의원 입법조사 요청|research_requests|RschReq
의안 심사경과|bill_review_progress|BillReview
의안 위원회 회부|bill_referrals|BillRefer
의안 공청회|bill_public_hearings|BillHearing
의안 입법예고|bill_legislative_notices|BillNotice
의안 의견등록|bill_opinions|BillOpinion
의안 비용추계|bill_cost_estimates|BillCost
의안 검토보고서|bill_review_reports|BillReport
의안 수정안|bill_amendments|BillAmend
의안 대안반영 폐기|bill_alternatives|BillAlt
의안 청원 연계|bill_petitions|BillPetition
국회 회의록 발언|minutes_speeches|MinuteSpeech
국회 국정감사 질의|audit_questions|AuditQuest
국회 대정부질문|government_interpellations|GovQuest
국회 5분자유발언|five_minute_speeches|FiveMinSpeech
국회 서면질의|written_questions|WrittenQuest
"""

_KINDS_ASSEMBLY = """\
목록|list|lst|list
상세|details|dtl|get
현황|status|sts|get
통계|statistics|stat|get
대수별 현황|by_age|age|list
위원회별 현황|by_committee|cmit|list
월별 현황|monthly|mon|get
최근 현황|recent|rcnt|list
검색|search|srch|search
이력|history|hist|get
"""

# data.go.kr providers per domain: catalog platform, tool prefix, agency code and name, entity groups.
PROVIDERS = {
    "traffic": ("ex", "molit", "1613000", "국토교통부", ("region",)),
    "finance": ("kdic", "fsc", "1160100", "금융위원회", ("corp",)),
    "education": ("hrd", "moe", "1342000", "교육부", ("school",)),
    "law": ("law", "moleg", "1170000", "법제처", ("law",)),
    "politics": ("assembly", "nas", "9710000", "국회사무처", ("dmember",)),
    "district": ("gg", "mois", "1741000", "행정안전부", ("region",)),
}

_SUBJECTS_DATAGOKR = {
    "traffic": """\
버스정류소|bus_stops|BusSttn
도로교통량|road_traffic_volumes|RoadTrfcVol
교통사고|traffic_accidents|TrfcAcdnt
자동차등록|vehicle_registrations|CarReg
철도역|railway_stations|RlwySttn
공항 운항|flight_operations|FlghtOper
화물운송|freight_transport|FrghtTrnsp
주차장|parking_lots|Parking
도로공사|road_constructions|RoadCnstrc
대중교통 이용|transit_ridership|PblcTrnsp
택시 면허|taxi_licenses|TaxiLcns
자동차 검사소|vehicle_inspection_centers|CarInspct
""",
    "finance": """\
기업 기본정보|corporate_profiles|CorpOutline
주식 발행정보|stock_issuances|StockIssu
채권 발행정보|bond_issuances|BondIssu
배당 정보|dividends|Dividend
기업 재무정보|corporate_financials|CorpFnnl
금융회사 점포|financial_branches|FnCoBrnch
보험상품|insurance_products|InsurPrdct
대출상품|loan_products|LoanPrdct
신용공여|credit_extensions|CrdtExtn
증권 예탁|securities_deposits|SecuDpst
소상공인 정책자금|small_business_funds|SbizFund
외국인 투자|foreign_investments|FrgnInvst
""",
    "education": """\
학교 기본정보|school_profiles|SchulInfo
학교 급식|school_meals|SchulMeal
학생 현황|student_counts|StdntStus
교원 현황|teacher_counts|TchrStus
방과후학교|after_school_programs|AftrSchul
학교 시설|school_facilities|SchulFclty
학교 안전|school_safety|SchulSafe
진로 교육|career_education|CareerEdu
학교 예산|school_budgets|SchulBdgt
교육 정보화|education_informatization|EduInfo
학교 폭력 예방|bullying_prevention|VlncPrvnt
장학금|scholarships|Schlrshp
""",
    "law": """\
법령 개정 이력|law_amendments|LawAmend
법령 조문 인용|article_citations|ArtclCite
법령 위임 현황|delegations|LawDlgt
법령 용어|legal_terms|LawTerm
법령 별표 서식|law_annexes|LawAnnex
입법 예고|legislative_notices|LgsltNotice
법령 해석 요청|interpretation_requests|IntrpReq
법령 영문 번역|english_translations|EngLaw
자치법규 위임|ordinance_delegations|OrdinDlgt
법령 시행 일정|enforcement_schedules|EnfSchd
규제 정보|regulations|Rgltn
법령 소관 부처|jurisdictions|LawJrsdc
""",
    "politics": """\
의원 후원회|member_support_groups|SprtGroup
의원 재산공개|member_assets|AsstDsclsr
의원 입법활동|member_legislation|LgsltAct
의원 지역구 사업|district_projects|DstrctPrjct
의원 보좌직원|member_staff|MemberStaff
의원 겸직|member_side_jobs|SideJob
의원 출석|member_attendance|Attend
의원 세미나|member_seminars|Seminar
""",
    "district": """\
주민등록 인구|resident_populations|RsdntPpltn
지방재정|local_finances|LoclFnnc
지방세|local_taxes|LoclTax
행정동 현황|administrative_dongs|AdmDong
지역 축제|local_festivals|LoclFstvl
민원 처리|civil_complaints|CvlCmpln
공공시설 개방|open_public_facilities|PblcFcltyOpen
재난 안전|disaster_safety|DsstrSafe
새마을 금고|community_credit_unions|SmgCrdt
지방 공무원|local_officials|LoclOfcl
지역 일자리|local_jobs|LoclJob
인구 이동|population_migration|PpltnMvmn
""",
}

_KINDS_DATAGOKR = """\
목록 조회|list|List|list
상세 조회|details|Detail|get
현황 조회|status|Stus|get
통계 조회|statistics|Stats|get
검색|search|Search|search
연도별 조회|yearly|Yearly|get
지역별 조회|by_region|Region|list
기간별 조회|by_period|Period|list
기준일자별 조회|by_date|Date|list
"""


def _rows(block: str) -> list[list[str]]:
    return [line.split("|") for line in block.strip().splitlines()]


@dataclass(frozen=True)
class Dataset:
    """One generated dataset: where it is served, what the catalog calls it, which columns it has."""

    family: str  # gg | seoul | assembly | datagokr
    platform: str  # catalog platform id
    domain: str
    subject: str  # what one row is (노인복지시설, 정치자금, 지점): the simulator names rows after it, never exported
    key: str  # endpoint key: SERVICE / API code / data.go.kr path
    name: str  # tool name
    title: str
    description: str
    columns: tuple[Arch, ...]
    filters: tuple[str, ...]  # filterable column names (wire params), in the service's order
    rows: int  # rows at small scale


def _pick_columns(family: str, key: str, entity: list[Arch], style: str,
                  record: bool = False) -> tuple[tuple[Arch, ...], tuple[str, ...]]:
    """Entity columns first, then 4–12 columns in all, drawn from the plain archetypes of a place or of a
    record."""
    rng = stream(SPEC_SEED, "longtail-columns", f"{family}:{key}")
    plain = plain_archs(style, record)
    name_col = plain[0]
    total = int(rng.integers(max(4, len(entity) + 2), 13))
    k = min(max(total - len(entity) - 1, 1), len(plain) - 1)
    rest = [plain[int(i)] for i in sorted(rng.choice(range(1, len(plain)), size=k, replace=False).tolist())]
    cols = (*entity, name_col, *rest)
    filters = [a.name for a in entity if a.pattern or a.kind.endswith("_nm") or a.op == "contains"
               or a.kind in ("gg_sigun_nm", "seoul_cgg_nm", "member_name")]
    filters.append(name_col.name)
    filters += [a.name for a in rest if a.pattern][:1]
    return cols, tuple(dict.fromkeys(filters))


def _n_rows(family: str, key: str) -> int:
    """20–200 rows at small scale, skewed small (most datasets are short lists)."""
    rng = stream(SPEC_SEED, "longtail-rows", f"{family}:{key}")
    return int(min(200, 20 + rng.exponential(45)))


def _ro(word: str) -> str:
    """The particle (으)로 after `word`: 으로 after a final consonant other than ㄹ (시군명으로), else 로
    (시군코드로, 의안ID로)."""
    last = word[-1]
    return "으로" if "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 not in (0, 8) else "로"


def _lookup_sentence(cols: tuple[Arch, ...], filters: tuple[str, ...]) -> str:
    """How the dataset is looked up, in the labels and wire names it documents (entity filters only)."""
    by_name = {a.name: a for a in cols}
    keys = [by_name[f] for f in filters if by_name[f].entity]
    if not keys:
        return ""
    listed = ", ".join(f"{a.label}({a.name})" for a in keys)
    return f" {listed}{_ro(keys[-1].label)} 조회할 수 있습니다."


def _about(subject: str, kind: str) -> str:
    """'<subject> <kind> 정보', without doubling 정보 (위치 정보 정보)."""
    return f"{subject} {kind}" + ("" if kind.endswith("정보") else " 정보")


def _local(family: str) -> list[Dataset]:
    """경기데이터드림 (gg) or 서울 열린데이터광장 (seoul): local-government datasets, 시군구-keyed."""
    subjects, kinds = _rows(_SUBJECTS_LOCAL), _rows(_KINDS_LOCAL)
    roles = list(ENTITY_ROLES[family].values())
    sido = "경기도" if family == "gg" else "서울시"
    out = []
    for ko, en, abbr in subjects:
        for kko, ken, kabbr, verb in kinds:
            if family == "gg":
                key, area = f"Gg{abbr}{kabbr}", "경기도 내"
            else:
                key, area = f"Tb{abbr}{kabbr}", "서울시 자치구별"
            title = f"{sido} {ko} {kko}"
            cols, filters = _pick_columns(family, key, name_roles(family, key, roles, "upper"), "upper")
            desc = f"{area} {_about(ko, kko)}를 제공합니다.{_lookup_sentence(cols, filters)}"
            out.append(Dataset(family, family, "district" if family == "gg" else "traffic", ko.split(" ")[0], key,
                               f"{verb}_{family}_{en}_{ken}", title, desc, cols, filters, _n_rows(family, key)))
    return out


def _assembly_code(key: str, taken: set[str]) -> str:
    """An opaque 17-letter lowercase API code, as 열린국회정보 names its services."""
    rng = stream(SPEC_SEED, "longtail-assembly-code", key)
    while True:
        code = "".join(chr(97 + int(i)) for i in rng.integers(0, 26, 17))
        if code not in taken:
            taken.add(code)
            return code


def _assembly() -> list[Dataset]:
    out: list[Dataset] = []
    taken: set[str] = set()
    for ko, en, _abbr in _rows(_SUBJECTS_ASSEMBLY):
        group = "bill" if ko.startswith("의안") else "member"
        roles = list(ENTITY_ROLES[group].values())
        if group == "bill":
            roles.append(ENTITY_ROLES["member"]["member_name"])
        for kko, ken, kabbr, verb in _rows(_KINDS_ASSEMBLY):
            code = _assembly_code(f"{en}:{kabbr}", taken)
            title = f"{ko} {kko}"
            cols, filters = _pick_columns("assembly", code, name_roles("assembly", code, roles, "upper"), "upper",
                                          record=True)
            desc = f"{_about(ko, kko)}를 제공합니다.{_lookup_sentence(cols, filters)}"
            out.append(Dataset("assembly", "assembly", "politics", ko.split(" ", 1)[1], code,
                               f"{verb}_assembly_{en}_{ken}", title, desc, cols, filters, _n_rows("assembly", code)))
    return out


def _datagokr() -> list[Dataset]:
    out = []
    for domain, block in _SUBJECTS_DATAGOKR.items():
        platform, prefix, agency, agency_nm, groups = PROVIDERS[domain]
        roles = [r for g in groups for r in ENTITY_ROLES[g].values()]
        for ko, en, abbr in _rows(block):
            for kko, ken, kabbr, verb in _rows(_KINDS_DATAGOKR):
                key = f"/{agency}/{abbr}InfoService/get{abbr}{kabbr}"
                title = f"{agency_nm}_{ko} {kko}"
                cols, filters = _pick_columns("datagokr", key, name_roles("datagokr", key, roles, "camel"), "camel",
                                              record=ko not in _DATAGOKR_PLACES)
                desc = f"{agency_nm}에서 제공하는 {ko} 정보의 {kko} 서비스입니다.{_lookup_sentence(cols, filters)}"
                out.append(Dataset("datagokr", platform, domain, _DATAGOKR_PLACES.get(ko, ko), key, f"{verb}_{prefix}_{en}_{ken}", title, desc,
                                   cols, filters, _n_rows("datagokr", key)))
    return out


@cache
def datasets() -> tuple[Dataset, ...]:
    """Every generated dataset, in a fixed order (gg, seoul, assembly, data.go.kr)."""
    out = (*_local("gg"), *_local("seoul"), *_assembly(), *_datagokr())
    names = [d.name for d in out]
    if len(set(names)) != len(names):
        raise ValueError("long-tail tool names collide")
    return out
