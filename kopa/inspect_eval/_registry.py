"""What Inspect loads through the `inspect_ai` entry point: the tasks it lists as `kopa/<name>` and the model
provider `kopa/mock` (an offline stand-in: no network, no tokenizer download)."""

from kopa.inspect_eval.offline_model import kopa_models
from kopa.inspect_eval.task import kopa_bench

__all__ = ["kopa_bench", "kopa_models"]
