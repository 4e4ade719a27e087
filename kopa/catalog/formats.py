"""Value formats the real services document, as regular expressions.

A tool parameter or output field names its format; the OpenAI schema carries the pattern so a
model (and `kopa bench lint`) can see that `corp_code` is 8 digits before a call is made.
"""

from __future__ import annotations

FORMATS: dict[str, tuple[str, str]] = {
    # name: (regex, Korean description shown to models)
    "yyyymmdd": (r"^\d{8}$", "YYYYMMDD 형식의 날짜 (예: 20260130)"),
    "yyyymm": (r"^\d{6}$", "YYYYMM 형식의 연월 (예: 202601)"),
    "yyyy": (r"^\d{4}$", "YYYY 형식의 연도 (예: 2026)"),
    "hh": (r"^\d{2}$", "HH 형식의 시각 (00~23)"),
    "date_range": (r"^\d{8}~\d{8}$", "YYYYMMDD~YYYYMMDD 형식의 기간"),
    "corp_code": (r"^\d{8}$", "DART 고유번호 (8자리)"),
    "stock_code": (r"^\d{6}$", "종목 단축코드 (6자리)"),
    "isin": (r"^KR[0-9A-Z]{10}$", "표준코드 ISIN (12자리, 예: KR7005930003)"),
    "jurir_no": (r"^\d{13}$", "법인등록번호 (13자리)"),
    "bizr_no": (r"^\d{10}$", "사업자등록번호 (10자리)"),
    "rcept_no": (r"^\d{14}$", "접수번호 (14자리)"),
    "reprt_code": (r"^110(11|12|13|14)$", "보고서 코드 (11011 사업보고서, 11012 반기, 11013 1분기, 11014 3분기)"),
    "atpt_code": (r"^[A-Z]\d{2}$", "시도교육청코드 (예: B10)"),
    "sd_schul_code": (r"^\d{7}$", "행정표준코드 학교코드 (7자리)"),
    "schul_code": (r"^[A-Z]\d{9}$", "학교알리미 학교코드"),
    "sido_code": (r"^\d{2}$", "시도 행정코드 (2자리, 예: 11 서울)"),
    "sigungu_code": (r"^\d{5}$", "행정표준 시군구코드 (5자리, 예: 11680)"),
    "stdg_code": (r"^\d{5}$", "법정동코드 (5자리)"),
    "law_id": (r"^\d{6}$", "법령ID (6자리)"),
    "law_mst": (r"^\d{6}$", "법령일련번호 MST (6자리)"),
    "jo": (r"^\d{6}$", "조문번호 JO (6자리: 조 4자리 + 가지 2자리, 예: 제10조의2 → 001002)"),
    "mona_cd": (r"^[0-9A-Z]{8}$", "국회의원 코드 MONA_CD (8자리)"),
    "bill_id": (r"^PRC_[A-Z0-9]{29,30}$", "의안ID (PRC_로 시작)"),
    "bill_no": (r"^\d{7}$", "의안번호 (7자리)"),
    "age": (r"^\d{1,2}$", "국회 대수 (예: 22)"),
    "unit_code": (r"^\d{3}$", "영업소 코드 (3자리)"),
    "route_no": (r"^\d{4}$", "노선번호 (4자리, 예: 0010 경부선)"),
    "service_area_code": (r"^A\d{5}$", "휴게소 코드 (예: A00001)"),
    "std_rest_cd": (r"^\d{6}$", "휴게소 표준코드 (6자리)"),
    "trpr_id": (r"^AIG\d{14}$", "훈련과정ID"),
    "trpr_degr": (r"^\d{1,3}$", "훈련과정 회차"),
    "jm_cd": (r"^\d{4}$", "국가기술자격 종목코드 (4자리)"),
    "torg_id": (r"^\d{12}$", "HRD-Net 훈련기관ID (trainstCstId, 12자리)"),
    "sigun_cd": (r"^41\d{3}$", "경기도 시군코드 (5자리, 41xxx)"),
    "law_hang": (r"^\d{6}$", "항·호 번호 (6자리: 번호 4자리 + 가지 2자리, 예: 제2항 → 000200)"),
    "prec_id": (r"^\d{6}$", "판례일련번호 (6자리)"),
    "admrul_seq": (r"^\d{13}$", "행정규칙일련번호 (13자리)"),
    "expc_id": (r"^\d{6}$", "법령해석례일련번호 (6자리)"),
    # 서울 열린데이터광장
    "subway_station_cd": (r"^\d{4}$", "서울 지하철 역코드 STATION_CD (4자리, 예: 0222)"),
    "bus_route_id": (r"^\d{9}$", "서울 버스 노선ID BUS_ROUTE_ID (9자리)"),
    "trdar_cd": (r"^\d{7}$", "서울 상권코드 TRDAR_CD (7자리)"),
    "yyyyq": (r"^\d{4}[1-4]$", "기준년분기코드 (YYYY + 분기 1~4, 예: 20243)"),
    # Shapes, as a portal documents a code without saying what it identifies (the generated long tail):
    # one id per shape, shared by every entity of that shape (법령ID and 종목코드 are both 6 digits).
    "digits5": (r"^\d{5}$", "숫자 5자리"),
    "digits6": (r"^\d{6}$", "숫자 6자리"),
    "digits7": (r"^\d{7}$", "숫자 7자리"),
    "digits13": (r"^\d{13}$", "숫자 13자리"),
    "alnum8": (r"^[0-9A-Z]{8}$", "영문 대문자·숫자 8자리"),
    "letter_digits2": (r"^[A-Z]\d{2}$", "영문 대문자 1자리 + 숫자 2자리"),
    "prc_alnum": (r"^PRC_[A-Z0-9]{29,30}$", "PRC_ 뒤에 영문 대문자·숫자 29~30자리"),
}


def pattern_of(fmt: str | None) -> str | None:
    return FORMATS[fmt][0] if fmt else None


def describe(fmt: str | None) -> str | None:
    return FORMATS[fmt][1] if fmt else None
