"""A tiny Qwen2 causal LM with its tokenizer, built on the spot (nothing downloaded): for training smoke runs.

    kopa rl tiny-model runs/gpu-smoke/model                     # what gpu_smoke.sh serves with vLLM (hermes)
    kopa rl tiny-model runs/tiny --template qwen2.5             # TRL's Qwen2.5 template: the README's TRL snippet

The tokenizer is a byte-level BPE trained on the texts it will read (by default KOPA-Bench's prompts and the
schemas of the tools they offer), with a ChatML template that renders tools and writes tool calls as JSON in
<tool_call> tags (verl's `hermes` parser reads them); `chat_template=` takes another (TRL's Qwen2.5 template,
whose tool calls TRL's parser reads, in tests/test_rl_trl.py and `--template qwen2.5`). The weights are random: such a model rarely
calls a tool until it is fine-tuned on trajectories (tests/test_rl_trl.py does that first).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kopa.eval.policies.prompt import initial_messages
from kopa.eval.task import task_set
from kopa.rl.tool_schema import training_tool_schema

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>",
           "</tool_response>"]
CHATML = (
    "{% if tools %}<|im_start|>system\n"
    "{% if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{% endif %}"
    "# Tools\n\n<tools>{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within <tool_call></tool_call>"
    " XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
    "{% elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n{% endif %}"
    "{% for message in messages %}"
    "{% if message.role == 'user' or (message.role == 'system' and not loop.first) %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% elif message.role == 'assistant' %}<|im_start|>assistant\n{{ message.content or '' }}"
    "{% for call in message.tool_calls or [] %}\n<tool_call>\n{\"name\": \"{{ call.function.name }}\", \"arguments\": "
    "{{ call.function.arguments | tojson if call.function.arguments is mapping else call.function.arguments }}}"
    "\n</tool_call>{% endfor %}<|im_end|>\n"
    "{% elif message.role == 'tool' %}"
    "{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}"
    "\n<tool_response>\n{{ message.content }}\n</tool_response>"
    "{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>\n{% endif %}"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tokenizer(texts: Iterable[str], chat_template: str = CHATML, vocab_size: int = 3000) -> Any:
    """A byte-level BPE fast tokenizer trained on `texts`, ChatML specials, `chat_template`."""
    # optional dependencies (kopa[trl]): imported where used, so kopa itself imports without them
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL,
                                                       show_progress=False,
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    fast.chat_template = chat_template
    return fast


def model(tok: Any, hidden: int = 64, layers: int = 2) -> Any:
    """A randomly initialised Qwen2 for `tok` (16k positions: a kopa prompt with its tools fits)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM  # optional (kopa[trl]), as above

    config = Qwen2Config(vocab_size=len(tok), hidden_size=hidden, intermediate_size=2 * hidden,
                         num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=16384, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                         tie_word_embeddings=True)
    return Qwen2ForCausalLM(config)


def bench_texts() -> list[str]:
    """KOPA-Bench's prompts and the tools they offer, as a trainer renders them."""
    tasks = list(task_set().tasks())
    tools = sorted({name for task in tasks for name in task.available_tools})
    return ([json.dumps(initial_messages(task), ensure_ascii=False) for task in tasks]
            + [json.dumps(training_tool_schema(name), ensure_ascii=False) for name in tools])


def build(out: Path, chat_template: str = CHATML) -> str:
    """Write the tokenizer (trained on KOPA-Bench's prompts and tools) and a random tiny model to `out`, seeded;
    returns a line saying what was built."""
    import torch  # optional (kopa[trl]), as above

    torch.manual_seed(0)
    tok = tokenizer(bench_texts(), chat_template=chat_template)
    built = model(tok)
    built.save_pretrained(out)
    tok.save_pretrained(out)
    return f"{sum(p.numel() for p in built.parameters()):,} parameters, vocabulary {len(tok)} → {out}"
