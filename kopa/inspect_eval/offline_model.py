"""`--model kopa/mock`: a model Inspect can run with no network and no download, to try the task end to end.

Inspect's `mockllm` counts tokens with tiktoken, whose encoding is downloaded on first use: offline, a run with
`-T policy=model --model mockllm/model` fails before its first sample. This model answers every request with
one fixed text (no tool call, so each episode ends on its first turn as `no_tool_used`) and counts tokens as
characters / 4 — enough to see the samples, scores and log of a run on a machine without network.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ModelUsage, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

ANSWER = "모르겠습니다. (kopa/mock: an offline stand-in model that never calls a tool)"


class OfflineMock(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        output = ModelOutput.from_content(model=self.model_name, content=ANSWER)
        read = sum(len(m.text) for m in input) + sum(len(t.description) for t in tools)
        output.usage = ModelUsage(input_tokens=read // 4 + 1, output_tokens=len(ANSWER) // 4 + 1,
                                  total_tokens=(read + len(ANSWER)) // 4 + 2)
        return output

    async def count_text_tokens(self, text: str) -> int:
        return len(text) // 4 + 1


@modelapi(name="kopa")
def kopa_models() -> type[ModelAPI]:
    return OfflineMock
