"""What Inspect loads through the `inspect_ai` entry point: the tasks it lists as `kopa/<name>`."""

from kopa.inspect_eval.task import kopa_bench

__all__ = ["kopa_bench"]
