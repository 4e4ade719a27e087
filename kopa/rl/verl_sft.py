"""verl's SFT trainer reading kopa's verified trajectories exactly (``pip install 'kopa[rl]'``).

verl's ``MultiTurnSFTDataset`` reads Parquet through pandas, and a Parquet column has one type: every
message of every row becomes one struct, every tool call's ``arguments`` one struct with the union of all
calls' argument names, every tool schema's ``properties`` the union of all tools' parameters. A call that
set ``serviceKey`` and ``pageNo`` comes back with ``"baseTm": null`` and dozens more beside them, and the
chat template writes those nulls into the text the model is trained on.

So ``kopa rl export --format verl-sft`` writes ``messages`` and ``tools`` as JSON text (one string column
each: nothing to unify), and :class:`KopaSFTDataset` — verl's dataset, named in the trainer's config by
``data.custom_cls.path=pkg://kopa.rl.verl_sft data.custom_cls.name=KopaSFTDataset`` — decodes them after
verl has read the file (``kopa.rl.export.VERL_SFT_OVERRIDES``, which the export prints); everything else
(sampling, tokenizing turn by turn, masks, padding) is verl's own.
"""

from __future__ import annotations

from typing import Any

import orjson
import pandas as pd
import torch
from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset
from verl.utils.tokenizer.chat_template import apply_chat_template


class KopaSFTDataset(MultiTurnSFTDataset):  # type: ignore[misc]  # verl ships no type information
    """verl's multi-turn SFT dataset over a ``--format verl-sft`` Parquet: its JSON-text columns decoded."""

    def _read_files_and_process(self) -> None:
        super()._read_files_and_process()
        for key in (self.messages_key, self.tools_key):
            if key in self.dataframe.columns:
                # a plain object column: mapping the pyarrow-backed strings would build an Arrow column of
                # the decoded values, structs and all, and bring the nulls back
                column = self.dataframe[key]
                self.dataframe[key] = pd.Series([_decoded(text) for text in column], index=column.index,
                                                dtype=object)
        self.messages = self.dataframe[self.messages_key].tolist()
        self.tools = self.dataframe[self.tools_key].tolist() if self.tools_key in self.dataframe.columns else None

    def _process_single_message(self, index: int, message: dict[str, Any], full_message: list[dict[str, Any]],
                                tools: list[dict[str, Any]] | None = None, enable_thinking: bool | None = None
                                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict[str, Any]]:
        if _continues_piece(full_message, index):  # rendered with its piece's first message
            nothing = torch.zeros(0, dtype=torch.long)
            return nothing, nothing.clone(), nothing.clone(), {}
        end = _piece_end(full_message, index)
        if end == index + 1:
            return super()._process_single_message(index, message, full_message, tools, enable_thinking)
        options = dict(self.apply_chat_template_kwargs)
        if enable_thinking is not None:
            options["enable_thinking"] = enable_thinking
        inputs = dict(apply_chat_template(self.processor or self.tokenizer, messages=full_message[index:end],
                                          tools=tools, add_generation_prompt=False, tokenize=True, return_dict=True,
                                          return_tensors="pt", **options))
        input_ids, attention_mask = inputs.pop("input_ids")[0], inputs.pop("attention_mask")[0]
        # verl's own step for every message after the first: the template's default system prompt comes off
        cut = len(self.system_prompt) if index else 0
        return input_ids[cut:], torch.zeros_like(attention_mask[cut:]), attention_mask[cut:], inputs


def _continues_piece(messages: list[dict[str, Any]], index: int) -> bool:
    """Whether the message is rendered together with the one before it: a tool result after a tool result, or
    the first user message after the opening system message (Qwen3.5's template refuses a system message alone
    and refuses one after verl's stand-in user message)."""
    if index == 0:
        return False
    role, before = messages[index]["role"], messages[index - 1]["role"]
    return (role == before == "tool") or (index == 1 and role == "user" and before == "system")


def _piece_end(messages: list[dict[str, Any]], index: int) -> int:
    end = index + 1
    while end < len(messages) and _continues_piece(messages, end):
        end += 1
    return end


def _decoded(text: Any) -> Any:
    if not isinstance(text, str):
        raise TypeError(f"KopaSFTDataset reads `kopa rl export --format verl-sft` files (JSON text columns); "
                        f"got {type(text).__name__}")
    return orjson.loads(text)
