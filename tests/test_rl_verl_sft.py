"""verl's SFT trainer reading `kopa rl export --format verl-sft` (`nox -s rl`; skipped without verl and TRL).

The dataset is built as verl's SFT trainer builds it — `verl.trainer.sft_trainer.create_sft_dataset` with the
trainer's own Hydra config and the two overrides the export prints — and each sample's token ids, decoded,
must be the chat template's rendering of the exported conversation (the JSONL export, rendered whole by the
tokenizer: an independent computation), under Qwen2.5's and Qwen3.5's templates as TRL ships them and
verl's own per-sample check left on. The oracle's trajectories include parallel calls (traffic-009), so a
run of tool results is in the data.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

pytest.importorskip("verl", reason="verl is not installed: pip install 'kopa[rl]' (nox -s rl)")
pytest.importorskip("trl", reason="TRL ships the Qwen chat templates these tests render with (nox -s rl)")

pytestmark = pytest.mark.verl

import pandas as pd  # noqa: E402  (installed with verl)
import verl  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from trl import chat_template_utils  # noqa: E402
from verl.trainer.sft_trainer import create_sft_dataset  # noqa: E402
from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset  # noqa: E402

from kopa.cli import main  # noqa: E402
from kopa.rl import tiny_model as TINY  # noqa: E402
from kopa.rl.export import VERL_SFT_OVERRIDES  # noqa: E402
from kopa.rl.rollouts import RolloutConfig, generate  # noqa: E402
from kopa.rl.verl_sft import KopaSFTDataset  # noqa: E402

TASKS = ("law-014", "traffic-009", "law-004", "district-002")
TEMPLATES = {"qwen2_5": chat_template_utils.qwen2_5_chat_template,
             "qwen3_5": chat_template_utils.qwen3_5_nothink_chat_template}


@pytest.fixture(scope="module")
def exported(tmp_path_factory, _isolated_cache):
    folder = tmp_path_factory.mktemp("verl-sft")
    generate(RolloutConfig(policy="oracle", n=1, only=TASKS), folder / "rollouts")
    for fmt, name in (("sft", "sft.jsonl"), ("verl-sft", "sft.parquet")):
        done = CliRunner().invoke(main, ["rl", "export", "--format", fmt, "--from", str(folder / "rollouts"),
                                         "-o", str(folder / name)])
        assert done.exit_code == 0, done.output
    assert " ".join(VERL_SFT_OVERRIDES) in done.output  # the export says how verl reads it
    rows = [json.loads(line) for line in (folder / "sft.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["task_id"] for r in rows) == sorted(TASKS)
    return folder, rows


def _data_config(overrides: list[str]):
    with initialize_config_dir(config_dir=str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        return compose(config_name="sft_trainer_engine", overrides=[
            *overrides, "data.max_length=400000", "data.pad_mode=no_padding"]).data


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_verls_sft_trainer_reads_each_conversation_as_the_template_renders_it(exported, template):
    folder, rows = exported
    tokenizer = TINY.tokenizer([json.dumps(r, ensure_ascii=False) for r in rows], chat_template=TEMPLATES[template])
    config = _data_config(list(VERL_SFT_OVERRIDES))
    assert config.ignore_input_ids_mismatch is False  # verl's own per-sample check stays on
    dataset = create_sft_dataset([str(folder / "sft.parquet")], config, tokenizer, None)
    assert isinstance(dataset, KopaSFTDataset) and len(dataset) == len(rows)
    parallel = 0
    for index, row in enumerate(rows):
        sample = dataset[index]
        want = tokenizer.apply_chat_template(row["messages"], tools=row["tools"], tokenize=False)
        assert tokenizer.decode(sample["input_ids"]) == want, row["task_id"]
        trained = tokenizer.decode(sample["input_ids"][sample["loss_mask"].bool()])
        calls = [c for m in row["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        assert all(c["function"]["name"] in trained for c in calls)  # the calls are what the loss is taken on
        assert "<tool_response>" not in trained and row["messages"][1]["content"] not in trained
        parallel += any(a["role"] == b["role"] == "tool" for a, b in itertools.pairwise(row["messages"]))
    assert parallel >= 1  # a run of tool results was among them


def test_verls_own_dataset_over_plain_parquet_writes_other_calls_argument_names_as_null(exported):
    """Why the export is JSON text: the same records as nested Parquet (pandas, as a user would convert the
    JSONL) give every call the union of all calls' argument names, and verl's dataset renders the nulls."""
    folder, rows = exported
    plain = folder / "plain.parquet"
    pd.DataFrame(rows).to_parquet(plain)
    tokenizer = TINY.tokenizer([json.dumps(r, ensure_ascii=False) for r in rows],
                                  chat_template=TEMPLATES["qwen2_5"])
    dataset = MultiTurnSFTDataset([str(plain)], tokenizer, _data_config(["data.ignore_input_ids_mismatch=true"]))
    texts = [tokenizer.decode(dataset[i]["input_ids"]) for i in range(len(rows))]
    assert sum(": null" in text for text in texts) >= 1
    assert not any(": null" in tokenizer.apply_chat_template(r["messages"], tools=r["tools"], tokenize=False)
                   for r in rows)
