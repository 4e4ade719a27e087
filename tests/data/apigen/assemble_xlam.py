# Wraps hand-written entries (query, offered tools, answers) in the xlam-60k line shape.
# Tool documentation and every entry below were written by hand; nothing here draws or generates values.
import json
import sys
from pathlib import Path

TOOLS = {
 "find_dart_corp_code": {"description": "DART 전자공시: 회사명으로 공시대상회사의 고유번호(corp_code)를 찾습니다.",
   "parameters": {"corp_name": {"description": "회사명 (일부만 입력해도 검색)", "type": "str", "default": ""}}},
 "get_dart_company_overview": {"description": "DART 전자공시 기업개황: 대표자명, 주소, 업종, 설립일 등 회사 기본 정보.",
   "parameters": {"corp_code": {"description": "공시대상회사의 고유번호 (8자리)", "type": "str", "default": ""}}},
 "get_stock_price_trend": {"description": "금융위원회 주식시세정보: 종목의 일별 시가, 종가, 거래량.",
   "parameters": {"basDt": {"description": "기준일자 (YYYYMMDD)", "type": "str, optional"},
                  "itmsNm": {"description": "종목명", "type": "str, optional"},
                  "numOfRows": {"description": "한 페이지 결과 수", "type": "int, optional", "default": 10}}},
 "get_krx_kospi_daily_trading": {"description": "KRX 유가증권시장 일별매매정보 (종목별 종가, 거래량).",
   "parameters": {"basDd": {"description": "기준일자 YYYYMMDD", "type": "str", "default": "20260129"}}},
 "get_krx_kosdaq_daily_trading": {"description": "KRX 코스닥시장 일별매매정보.",
   "parameters": {"basDd": {"description": "기준일자 YYYYMMDD", "type": "str", "default": "20260129"}}},
 "find_assembly_member": {"description": "열린국회정보 국회의원 인적사항: 이름, 정당, 선거구, 위원회.",
   "parameters": {"HG_NM": {"description": "의원 이름", "type": "str, optional"},
                  "POLY_NM": {"description": "정당명", "type": "str, optional"},
                  "ORIG_NM": {"description": "선거구 (예: 서울 강남구)", "type": "str, optional"}}},
 "get_assembly_member_sns": {"description": "국회의원 SNS정보 (트위터, 페이스북, 유튜브, 블로그).",
   "parameters": {"HG_NM": {"description": "의원 이름", "type": "str, optional"}}},
 "get_assembly_member_career": {"description": "국회의원 의원이력 (대수별 이력).",
   "parameters": {"HG_NM": {"description": "의원 이름", "type": "str, optional"}}},
 "find_neis_school_code": {"description": "NEIS 학교기본정보: 학교명으로 시도교육청코드와 학교코드, 주소를 찾습니다.",
   "parameters": {"SCHUL_NM": {"description": "학교명", "type": "str, optional"},
                  "LCTN_SC_NM": {"description": "시도명 (예: 서울특별시)", "type": "str, optional"}}},
 "get_neis_school_meal_menu": {"description": "NEIS 급식식단정보: 학교의 날짜별 급식 메뉴.",
   "parameters": {"ATPT_OFCDC_SC_CODE": {"description": "시도교육청코드", "type": "str"},
                  "SD_SCHUL_CODE": {"description": "행정표준 학교코드", "type": "str"},
                  "MLSV_YMD": {"description": "급식일자 YYYYMMDD", "type": "str, optional"}}},
 "search_seoul_subway_stations": {"description": "서울시 지하철 호선별 역명 정보.",
   "parameters": {"STATION_NM": {"description": "역명", "type": "str, optional"},
                  "LINE_NUM": {"description": "호선 (예: 02호선)", "type": "str, optional"}}},
 "find_seoul_bus_route": {"description": "서울시 버스노선 정보 (기점, 종점, 배차간격).",
   "parameters": {"BUS_ROUTE_NO": {"description": "버스 노선 번호", "type": "str, optional"}}},
 "list_ex_routes": {"description": "한국도로공사 고속도로 노선 현황 (노선번호, 노선명).",
   "parameters": {"routeName": {"description": "노선명 (예: 경부선)", "type": "str, optional"}}},
 "list_ex_rest_bestfood": {"description": "한국도로공사 휴게소 대표음식 (메뉴와 가격).",
   "parameters": {"routeCode": {"description": "노선번호 (4자리)", "type": "str, optional"},
                  "serviceAreaName": {"description": "휴게소명", "type": "str, optional"}}},
 "list_ex_rest_oil_stations": {"description": "한국도로공사 휴게소 주유소 현황 (유가).",
   "parameters": {"routeCd": {"description": "노선번호 (4자리)", "type": "str, optional"},
                  "stdRestNm": {"description": "주유소명", "type": "str, optional"}}},
 "list_qnet_qualifications": {"description": "Q-Net 국가자격 종목 목록 (종목코드, 종목명).",
   "parameters": {}},
 "get_qnet_qualification_info": {"description": "Q-Net 국가자격 종목별 자격정보 (개요, 수행직무, 진로).",
   "parameters": {"jmCd": {"description": "종목코드 (4자리)", "type": "str", "default": ""}}},
 "get_qnet_exam_fee": {"description": "Q-Net 종목별 응시수수료 (필기, 실기).",
   "parameters": {"jmCd": {"description": "종목코드 (4자리)", "type": "str", "default": ""}}},
 "list_kdic_insured_institutions": {"description": "예금보험공사 부보금융회사 목록.",
   "parameters": {"fnccmpNm": {"description": "금융회사명", "type": "str, optional"},
                  "fncsecDscdNm": {"description": "금융권역 (은행, 생명보험, 손해보험, 금융투자, 저축은행)", "type": "str, optional"}}},
 "list_gg_public_libraries": {"description": "경기데이터드림 도서관 현황.",
   "parameters": {"SIGUN_NM": {"description": "시군명", "type": "str, optional"},
                  "LIBRRY_NM": {"description": "도서관명", "type": "str, optional"}}},
 "list_gg_pharmacies": {"description": "경기데이터드림 약국 현황.",
   "parameters": {"SIGUN_NM": {"description": "시군명", "type": "str, optional"}}},
 "search_current_laws": {"description": "국가법령정보센터 현행법령 목록 (공포일 기준).",
   "parameters": {"query": {"description": "법령명 검색어", "type": "str, optional"}}},
 "list_law_revision_history": {"description": "국가법령정보센터 법령 연혁 목록.",
   "parameters": {"query": {"description": "법령명", "type": "str"}}},
 # Not a kopa tool: an xlam-style API a converted slice would carry along.
 "weather_api.get_current_weather": {"description": "지정된 장소의 현재 날씨를 가져옵니다.",
   "parameters": {"location": {"description": "도시명", "type": "str"},
                  "units": {"description": "온도 단위 (Celsius, Fahrenheit)", "type": "str, optional"}}},
}

def C(name, **args):
    return {"name": name, "arguments": args}

# (query, offered tools, answers)  — planted defects are marked in EXPECTED below by id.
E = [
 # --- DART
 ("삼한전자의 DART 고유번호를 찾아 주세요.", ["find_dart_corp_code"], [C("find_dart_corp_code", corp_name="삼한전자")]),
 ("성원전자의 공시 고유번호가 뭐예요?", ["find_dart_corp_code", "get_dart_company_overview"], [C("find_dart_corp_code", corp_name="성원전자")]),
 ("고유번호 00105359인 회사의 기업개황을 보여 주세요.", ["get_dart_company_overview"], [C("get_dart_company_overview", corp_code="00105359")]),
 ("고유번호 00241119 회사의 대표자와 주소가 궁금합니다. 기업개황으로 알려 주세요.", ["get_dart_company_overview", "find_dart_corp_code"], [C("get_dart_company_overview", corp_code="00241119")]),
 ("유진전자와 우성미래전자의 고유번호를 각각 찾아 주세요.", ["find_dart_corp_code"], [C("find_dart_corp_code", corp_name="유진전자"), C("find_dart_corp_code", corp_name="우성미래전자")]),
 ("고유번호 00507034, 00532292 두 회사의 기업개황을 모두 조회해 줘.", ["get_dart_company_overview"], [C("get_dart_company_overview", corp_code="00507034"), C("get_dart_company_overview", corp_code="00532292")]),
 ("대양은행 고유번호를 찾고, 고유번호 00183143인 회사의 기업개황도 같이 보여 주세요.", ["find_dart_corp_code", "get_dart_company_overview"], [C("find_dart_corp_code", corp_name="대양은행"), C("get_dart_company_overview", corp_code="00183143")]),
 ("유진네트은행의 고유번호 좀 알려줘.", ["find_dart_corp_code"], [C("find_dart_corp_code", corp_name="유진네트은행")]),
 ("이름에 '전자'가 들어가는 공시대상회사의 고유번호 목록을 보여 주세요.", ["find_dart_corp_code"], [C("find_dart_corp_code", corp_name="전자")]),
 ("고유번호 00139943인 회사의 기업개황이 필요합니다.", ["get_dart_company_overview", "get_stock_price_trend", "find_assembly_member"], [C("get_dart_company_overview", corp_code="00139943")]),
 # --- stocks
 ("브이화학의 2026년 1월 29일 주식 시세를 알려 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="브이화학", basDt="20260129")]),
 ("해솔시스템 주식 시세 조회해 줘.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="해솔시스템")]),
 ("코리아증권과 미래홀딩스의 주식 시세를 각각 보여 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="코리아증권"), C("get_stock_price_trend", itmsNm="미래홀딩스")]),
 ("온누리홀딩스, 화신머티리얼즈, 브이화학 세 종목의 주식 시세를 모두 알려줘.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="온누리홀딩스"), C("get_stock_price_trend", itmsNm="화신머티리얼즈"), C("get_stock_price_trend", itmsNm="브이화학")]),
 ("20260129 기준 유가증권시장 일별매매정보를 보여 주세요.", ["get_krx_kospi_daily_trading", "get_krx_kosdaq_daily_trading"], [C("get_krx_kospi_daily_trading", basDd="20260129")]),
 ("2026년 1월 28일 코스닥 일별매매정보가 필요해요.", ["get_krx_kospi_daily_trading", "get_krx_kosdaq_daily_trading"], [C("get_krx_kosdaq_daily_trading", basDd="20260128")]),
 ("2026년 1월 29일 유가증권과 코스닥 일별매매정보를 둘 다 보여 줘.", ["get_krx_kospi_daily_trading", "get_krx_kosdaq_daily_trading"], [C("get_krx_kospi_daily_trading", basDd="20260129"), C("get_krx_kosdaq_daily_trading", basDd="20260129")]),
 ("미래홀딩스 주식 시세를 10건만 보여 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="미래홀딩스", numOfRows=10)]),
 ("2026년 1월 28일 해솔시스템 종가가 궁금합니다.", ["get_stock_price_trend", "get_dart_company_overview"], [C("get_stock_price_trend", itmsNm="해솔시스템", basDt="20260128")]),
 ("코리아증권의 주식 시세와 고유번호 00105359 회사의 기업개황을 함께 알려 주세요.", ["get_stock_price_trend", "get_dart_company_overview"], [C("get_stock_price_trend", itmsNm="코리아증권"), C("get_dart_company_overview", corp_code="00105359")]),
 # --- assembly
 ("강도옥 의원의 인적사항을 알려 주세요.", ["find_assembly_member"], [C("find_assembly_member", HG_NM="강도옥")]),
 ("진보당 소속 국회의원 인적사항을 보여 줘.", ["find_assembly_member"], [C("find_assembly_member", POLY_NM="진보당")]),
 ("강명순 의원과 강상철 의원의 인적사항을 각각 찾아 주세요.", ["find_assembly_member"], [C("find_assembly_member", HG_NM="강명순"), C("find_assembly_member", HG_NM="강상철")]),
 ("강도옥 의원의 SNS 정보를 알려 주세요.", ["get_assembly_member_sns", "get_assembly_member_career", "find_assembly_member"], [C("get_assembly_member_sns", HG_NM="강도옥")]),
 ("강명순 의원의 의원이력을 보여 주세요.", ["get_assembly_member_career", "get_assembly_member_sns"], [C("get_assembly_member_career", HG_NM="강명순")]),
 ("선거구가 경기 여주시병인 국회의원 인적사항이 궁금해요.", ["find_assembly_member"], [C("find_assembly_member", ORIG_NM="경기 여주시병")]),
 ("국민의힘 의원 인적사항과 더불어민주당 의원 인적사항을 각각 조회해 줘.", ["find_assembly_member"], [C("find_assembly_member", POLY_NM="국민의힘"), C("find_assembly_member", POLY_NM="더불어민주당")]),
 ("강빈지 의원의 인적사항과 SNS 정보를 함께 알려 주세요.", ["find_assembly_member", "get_assembly_member_sns"], [C("find_assembly_member", HG_NM="강빈지"), C("get_assembly_member_sns", HG_NM="강빈지")]),
 ("강선정 의원 의원이력 좀 찾아줘.", ["get_assembly_member_career"], [C("get_assembly_member_career", HG_NM="강선정")]),
 ("강순영 의원과 강도옥 의원의 SNS 정보를 모두 보여 주세요.", ["get_assembly_member_sns"], [C("get_assembly_member_sns", HG_NM="강순영"), C("get_assembly_member_sns", HG_NM="강도옥")]),
 # --- schools
 ("덕화초등학교의 학교기본정보를 알려 주세요.", ["find_neis_school_code"], [C("find_neis_school_code", SCHUL_NM="덕화초등학교")]),
 ("청대중학교와 수영중학교의 학교기본정보를 각각 찾아 주세요.", ["find_neis_school_code"], [C("find_neis_school_code", SCHUL_NM="청대중학교"), C("find_neis_school_code", SCHUL_NM="수영중학교")]),
 ("시도교육청코드 B10, 학교코드 7000930인 학교의 급식 식단을 보여 주세요.", ["get_neis_school_meal_menu", "find_neis_school_code"], [C("get_neis_school_meal_menu", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE="7000930")]),
 ("석대고등학교 학교기본정보 좀 알려줘.", ["find_neis_school_code", "get_neis_school_meal_menu"], [C("find_neis_school_code", SCHUL_NM="석대고등학교")]),
 ("서울특별시에 있는 학교의 학교기본정보 목록을 보여 주세요.", ["find_neis_school_code"], [C("find_neis_school_code", LCTN_SC_NM="서울특별시")]),
 ("교육청코드 B10, 학교코드 7002209 학교와 학교코드 7003785 학교의 급식식단정보를 각각 조회해 주세요.", ["get_neis_school_meal_menu"], [C("get_neis_school_meal_menu", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE="7002209"), C("get_neis_school_meal_menu", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE="7003785")]),
 ("청상고등학교 학교기본정보와, 교육청 B10 학교코드 7005890 학교의 급식 식단을 같이 보여 줘.", ["find_neis_school_code", "get_neis_school_meal_menu"], [C("find_neis_school_code", SCHUL_NM="청상고등학교"), C("get_neis_school_meal_menu", ATPT_OFCDC_SC_CODE="B10", SD_SCHUL_CODE="7005890")]),
 ("은용초등학교의 학교기본정보가 필요합니다.", ["find_neis_school_code"], [C("find_neis_school_code", SCHUL_NM="은용초등학교")]),
 # --- Seoul transport
 ("시청역이 있는 지하철 호선별 역명 정보를 알려 주세요.", ["search_seoul_subway_stations"], [C("search_seoul_subway_stations", STATION_NM="시청")]),
 ("02호선 지하철 역명 정보를 보여 주세요.", ["search_seoul_subway_stations", "find_seoul_bus_route"], [C("search_seoul_subway_stations", LINE_NUM="02호선")]),
 ("종각, 종로3가, 동대문 역의 호선별 역명 정보를 각각 찾아 줘.", ["search_seoul_subway_stations"], [C("search_seoul_subway_stations", STATION_NM="종각"), C("search_seoul_subway_stations", STATION_NM="종로3가"), C("search_seoul_subway_stations", STATION_NM="동대문")]),
 ("582번 버스노선 정보를 알려 주세요.", ["find_seoul_bus_route"], [C("find_seoul_bus_route", BUS_ROUTE_NO="582")]),
 ("4328번과 6414번 서울 버스노선 정보를 각각 보여 주세요.", ["find_seoul_bus_route"], [C("find_seoul_bus_route", BUS_ROUTE_NO="4328"), C("find_seoul_bus_route", BUS_ROUTE_NO="6414")]),
 ("서울역 지하철 역명 정보와 110번 버스노선 정보를 같이 알려 줘.", ["search_seoul_subway_stations", "find_seoul_bus_route"], [C("search_seoul_subway_stations", STATION_NM="서울역"), C("find_seoul_bus_route", BUS_ROUTE_NO="110")]),
 ("01호선 역명 정보가 궁금해요.", ["search_seoul_subway_stations"], [C("search_seoul_subway_stations", LINE_NUM="01호선")]),
 # --- expressways
 ("경부선 고속도로 노선 현황을 알려 주세요.", ["list_ex_routes"], [C("list_ex_routes", routeName="경부선")]),
 ("노선번호 0010 휴게소 대표음식을 보여 주세요.", ["list_ex_rest_bestfood", "list_ex_rest_oil_stations"], [C("list_ex_rest_bestfood", routeCode="0010")]),
 ("노선번호 0010 고속도로 휴게소 주유소 현황이 궁금합니다.", ["list_ex_rest_oil_stations", "list_ex_rest_bestfood"], [C("list_ex_rest_oil_stations", routeCd="0010")]),
 ("남해선과 호남선의 고속도로 노선 현황을 각각 찾아 주세요.", ["list_ex_routes"], [C("list_ex_routes", routeName="남해선"), C("list_ex_routes", routeName="호남선")]),
 ("노포(서울)휴게소 대표음식을 알려 줘.", ["list_ex_rest_bestfood"], [C("list_ex_rest_bestfood", serviceAreaName="노포(서울)휴게소")]),
 ("노선번호 0010과 0100 휴게소 주유소 현황을 각각 보여 주세요.", ["list_ex_rest_oil_stations"], [C("list_ex_rest_oil_stations", routeCd="0010"), C("list_ex_rest_oil_stations", routeCd="0100")]),
 ("서해안선 노선 현황과 노선번호 0150 휴게소 대표음식을 함께 알려 주세요.", ["list_ex_routes", "list_ex_rest_bestfood"], [C("list_ex_routes", routeName="서해안선"), C("list_ex_rest_bestfood", routeCode="0150")]),
 ("고속도로 노선 현황 전체를 보여 주세요.", ["list_ex_routes"], [C("list_ex_routes")]),
 # --- Q-Net
 ("국가자격 종목 목록을 보여 주세요.", ["list_qnet_qualifications", "get_qnet_exam_fee"], [C("list_qnet_qualifications")]),
 ("종목코드 1150 자격의 자격정보를 알려 주세요.", ["get_qnet_qualification_info", "get_qnet_exam_fee"], [C("get_qnet_qualification_info", jmCd="1150")]),
 ("종목코드 1320 시험의 응시수수료가 얼마예요?", ["get_qnet_exam_fee", "get_qnet_qualification_info"], [C("get_qnet_exam_fee", jmCd="1320")]),
 ("종목코드 1034와 1403 자격의 응시수수료를 각각 알려 줘.", ["get_qnet_exam_fee"], [C("get_qnet_exam_fee", jmCd="1034"), C("get_qnet_exam_fee", jmCd="1403")]),
 ("종목코드 1320의 자격정보와 응시수수료를 모두 보여 주세요.", ["get_qnet_qualification_info", "get_qnet_exam_fee"], [C("get_qnet_qualification_info", jmCd="1320"), C("get_qnet_exam_fee", jmCd="1320")]),
 ("종목코드 1496, 1150, 1320 자격정보를 각각 조회해 주세요.", ["get_qnet_qualification_info"], [C("get_qnet_qualification_info", jmCd="1496"), C("get_qnet_qualification_info", jmCd="1150"), C("get_qnet_qualification_info", jmCd="1320")]),
 # --- KDIC
 ("대양은행이 부보금융회사 목록에 있는지 확인해 주세요.", ["list_kdic_insured_institutions"], [C("list_kdic_insured_institutions", fnccmpNm="대양은행")]),
 ("생명보험 권역의 부보금융회사 목록을 보여 주세요.", ["list_kdic_insured_institutions"], [C("list_kdic_insured_institutions", fncsecDscdNm="생명보험")]),
 ("경동은행과 국제은행의 부보금융회사 정보를 각각 찾아 주세요.", ["list_kdic_insured_institutions"], [C("list_kdic_insured_institutions", fnccmpNm="경동은행"), C("list_kdic_insured_institutions", fnccmpNm="국제은행")]),
 ("은행 권역 부보금융회사 목록이 필요해요.", ["list_kdic_insured_institutions", "find_dart_corp_code"], [C("list_kdic_insured_institutions", fncsecDscdNm="은행")]),
 # --- Gyeonggi
 ("고양시 도서관 현황을 알려 주세요.", ["list_gg_public_libraries", "list_gg_pharmacies"], [C("list_gg_public_libraries", SIGUN_NM="고양시")]),
 ("가평군 약국 현황을 보여 줘.", ["list_gg_pharmacies", "list_gg_public_libraries"], [C("list_gg_pharmacies", SIGUN_NM="가평군")]),
 ("고양시와 가평군의 약국 현황을 각각 알려 주세요.", ["list_gg_pharmacies"], [C("list_gg_pharmacies", SIGUN_NM="고양시"), C("list_gg_pharmacies", SIGUN_NM="가평군")]),
 ("가평군 도서관 현황과 고양시 약국 현황을 함께 조회해 주세요.", ["list_gg_public_libraries", "list_gg_pharmacies"], [C("list_gg_public_libraries", SIGUN_NM="가평군"), C("list_gg_pharmacies", SIGUN_NM="고양시")]),
 ("남산도서관이 어디 있는지 도서관 현황에서 찾아 줘.", ["list_gg_public_libraries"], [C("list_gg_public_libraries", LIBRRY_NM="남산도서관")]),
 # --- law
 ("도로교통법 현행법령 목록을 보여 주세요.", ["search_current_laws", "list_law_revision_history"], [C("search_current_laws", query="도로교통법")]),
 ("민법의 법령 연혁 목록을 알려 주세요.", ["list_law_revision_history", "search_current_laws"], [C("list_law_revision_history", query="민법")]),
 ("도로교통법과 민법의 법령 연혁을 각각 보여 줘.", ["list_law_revision_history"], [C("list_law_revision_history", query="도로교통법"), C("list_law_revision_history", query="민법")]),
 ("감염병의 예방 및 관리에 관한 법률을 현행법령에서 찾아 주세요.", ["search_current_laws"], [C("search_current_laws", query="감염병의 예방 및 관리에 관한 법률")]),
 ("민법 현행법령 목록과 도로교통법 연혁 목록을 함께 조회해 주세요.", ["search_current_laws", "list_law_revision_history"], [C("search_current_laws", query="민법"), C("list_law_revision_history", query="도로교통법")]),
 # --- more mixed good ones
 ("화신전자의 고유번호를 알려 주세요.", ["find_dart_corp_code", "list_kdic_insured_institutions"], [C("find_dart_corp_code", corp_name="화신전자")]),
 ("브이화학과 해솔시스템의 2026년 1월 29일 시세를 각각 알려 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="브이화학", basDt="20260129"), C("get_stock_price_trend", itmsNm="해솔시스템", basDt="20260129")]),
 ("강상철 의원 SNS 정보와 의원이력을 함께 보여 주세요.", ["get_assembly_member_sns", "get_assembly_member_career"], [C("get_assembly_member_sns", HG_NM="강상철"), C("get_assembly_member_career", HG_NM="강상철")]),
 ("종로5가역 역명 정보 알려줘.", ["search_seoul_subway_stations"], [C("search_seoul_subway_stations", STATION_NM="종로5가")]),
 ("경인선 고속도로 노선 현황을 보여 주세요.", ["list_ex_routes", "list_ex_rest_oil_stations"], [C("list_ex_routes", routeName="경인선")]),
 ("동성은행 부보금융회사 정보를 찾아 주세요.", ["list_kdic_insured_institutions"], [C("list_kdic_insured_institutions", fnccmpNm="동성은행")]),
 ("광명솔은행과 대양은행이 부보금융회사인지 각각 확인해 주세요.", ["list_kdic_insured_institutions"], [C("list_kdic_insured_institutions", fnccmpNm="광명솔은행"), C("list_kdic_insured_institutions", fnccmpNm="대양은행")]),
 ("2026년 1월 28일 유가증권 일별매매정보를 보여 주세요.", ["get_krx_kospi_daily_trading"], [C("get_krx_kospi_daily_trading", basDd="20260128")]),
 ("수영중학교 학교기본정보를 알려 주세요.", ["find_neis_school_code", "get_neis_school_meal_menu"], [C("find_neis_school_code", SCHUL_NM="수영중학교")]),
 ("4328번 버스노선 정보를 보여 주세요.", ["find_seoul_bus_route", "search_seoul_subway_stations"], [C("find_seoul_bus_route", BUS_ROUTE_NO="4328")]),
 ("종목코드 1736 자격정보를 알려 주세요.", ["get_qnet_qualification_info"], [C("get_qnet_qualification_info", jmCd="1736")]),
 ("호남선 노선 현황과 노선번호 0250 휴게소 주유소 현황을 같이 보여 주세요.", ["list_ex_routes", "list_ex_rest_oil_stations"], [C("list_ex_routes", routeName="호남선"), C("list_ex_rest_oil_stations", routeCd="0250")]),
 ("삼정삼화전자의 고유번호를 찾아 줘.", ["find_dart_corp_code"], [C("find_dart_corp_code", corp_name="삼정삼화전자")]),
 # --- planted defects (see EXPECTED): format
 ("삼한전자의 고유번호를 찾아 주세요.", ["find_dart_corp_code"], [C("dart.find_company_code", corp_name="삼한전자")]),
 ("브이화학 주식 시세를 알려 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", stockName="브이화학")]),
 ("미래홀딩스 주식 시세를 다섯 건만 보여 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="미래홀딩스", numOfRows="다섯")]),
 ("강도옥 의원 인적사항을 알려 주세요.", ["find_assembly_member"], "find_assembly_member(HG_NM='강도옥')"),
 # --- planted defects: execution
 ("고유번호 12345인 회사의 기업개황을 알려 주세요.", ["get_dart_company_overview"], [C("get_dart_company_overview", corp_code="12345")]),
 ("회사 기업개황을 보여 주세요.", ["get_dart_company_overview"], [C("get_dart_company_overview")]),
 ("파리의 현재 날씨를 섭씨로 알려 주세요.", ["weather_api.get_current_weather"], [C("weather_api.get_current_weather", location="Paris", units="Celsius")]),
 ("종목코드 1150 자격 응시수수료를 알려 주세요.", ["get_qnet_exam_fee"], [C("get_qnet_exam_fee", jmCd="전기기사")]),
 # --- planted defects: semantic
 ("홍길동 의원의 인적사항을 알려 주세요.", ["find_assembly_member"], [C("find_assembly_member", HG_NM="홍길동")]),
 ("고유번호 00105359인 회사의 기업개황을 알려 주세요.", ["get_dart_company_overview"], [C("get_dart_company_overview", corp_code="00139943")]),
 ("노선번호 0010 휴게소 대표음식을 알려 주세요.", ["list_ex_rest_bestfood", "list_ex_rest_oil_stations"], [C("list_ex_rest_oil_stations", routeCd="0010")]),
 ("해솔시스템 주식 시세를 알려 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="해솔시스템"), C("get_stock_price_trend", itmsNm="해솔시스템")]),
 ("코리아증권 주식 시세를 알려 주세요.", ["get_stock_price_trend"], [C("get_stock_price_trend", itmsNm="미래홀딩스")]),
 ("강명순 의원의 SNS 정보를 알려 주세요.", ["get_assembly_member_sns", "get_assembly_member_career"], [C("get_assembly_member_career", HG_NM="강명순")]),
]

EXPECTED = {}  # id -> [stage, reason] for the planted defects; every other record is meant to pass
planted = [("format", "hallucinated_function"), ("format", "unknown_argument"), ("format", "wrong_type"),
           ("format", "unparseable_json"),
           ("execution", "invalid_parameter"), ("execution", "missing_required_argument"),
           ("execution", "not_executable"), ("execution", "invalid_parameter"),
           ("semantic", "empty_result"), ("semantic", "ungrounded_argument"), ("semantic", "wrong_function"),
           ("semantic", "duplicate_call"), ("semantic", "ungrounded_argument"), ("semantic", "wrong_function")]
first_planted = len(E) - len(planted)
lines = []
for i, (query, offered, answers) in enumerate(E):
    rid = 1001 + i
    tools = [{"name": n, **TOOLS[n]} for n in offered]
    # the published dataset stores tools and answers as JSON text; every fourth line here uses plain lists
    as_text = i % 4 != 3
    row = {"id": rid, "query": query,
           "tools": json.dumps(tools, ensure_ascii=False) if as_text else tools,
           "answers": answers if isinstance(answers, str) else (json.dumps(answers, ensure_ascii=False) if as_text else answers)}
    lines.append(json.dumps(row, ensure_ascii=False))
    if i >= first_planted:
        EXPECTED[str(rid)] = list(planted[i - first_planted])
assert len(lines) == 100, len(lines)
Path(sys.argv[1]).write_text("\n".join(lines) + "\n", encoding="utf-8")
Path(sys.argv[2]).write_text(json.dumps(EXPECTED, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
