"""The agent's system prompt: its role, the injected states, and how to give the final answer.

The injected states follow the paper: PredefinedSystemState (facts about the session such as today's
date) and ActionSystemState (setup actions already done, e.g. API keys issued for DART and KRX), so a
model is told what it must not redo and what it still has to do itself. The prompt is in Korean, as the
tasks are. It gives the answer format but no hints about the tools' chains — finding the lookups is the
model's job and what the benchmark measures.
"""

from __future__ import annotations

from typing import Any

from kopa.catalog.loader import load_catalog
from kopa.eval.task import SetupAction, Task

PREDEFINED_LABELS = {
    "current_date": "현재 날짜 (오늘)",
    "user_location": "사용자 위치",
    "user_name": "사용자 이름",
}

ROLE = (
    "당신은 한국 공공기관 Open API 도구를 사용해 사용자의 질문에 답하는 에이전트입니다. "
    "필요한 정보는 제공된 도구를 호출해 얻고, 도구 결과에 근거해서만 답하세요."
)

RULES = [
    "서로 독립적인 도구 호출은 한 번의 응답에서 여러 개를 동시에(병렬로) 요청할 수 있습니다.",
    "도구 호출 횟수에는 제한이 있으니 같은 호출을 불필요하게 반복하지 마세요.",
    "'어제', '지난달' 같은 상대 날짜는 위의 현재 날짜를 기준으로 계산하세요.",
    "더 이상 도구를 호출할 필요가 없으면 도구 호출 없이 최종 답변을 작성하세요.",
    "최종 답은 숫자든 이름이든 목록이든 \\boxed{} 안에 넣으세요. 예: \\boxed{12.5}, \\boxed{과태료}, "
    "\\boxed{도로법, 유료도로법}",
]


def _describe_setup(action: SetupAction) -> str:
    if action.tool == "issue_api_key" and "platform" in action.args:
        platform = str(action.args["platform"])
        spec = load_catalog().platforms.get(platform)
        name = f"{spec.name} ({platform})" if spec else platform
        return f"{name} API 인증키가 이미 발급되어 이번 세션에 등록되어 있습니다. 다시 발급할 필요가 없습니다."
    args = ", ".join(f"{k}={_show(v)}" for k, v in action.args.items())
    return f"{action.tool}({args}) 이(가) 이미 실행되었습니다."


def _show(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def system_prompt(task: Task) -> str:
    lines = [ROLE, "", "## 시스템 상태 (PredefinedSystemState)"]
    predefined = task.state.predefined
    if predefined:
        lines += [f"- {PREDEFINED_LABELS.get(k, k)}: {v}" for k, v in predefined.items()]
    else:
        lines.append("- (없음)")
    lines += ["", "## 이미 수행된 작업 (ActionSystemState)"]
    if task.state.setup:
        lines += [f"- {_describe_setup(a)}" for a in task.state.setup]
    else:
        lines.append("- 없음")  # no hint to issue keys: skipping issuance is a failure mode under test
    lines += ["", "## 지침", *[f"- {rule}" for rule in RULES]]
    return "\n".join(lines)


def initial_messages(task: Task) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system_prompt(task)}, {"role": "user", "content": task.query}]
