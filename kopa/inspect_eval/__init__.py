"""KOPA-Bench as an Inspect task (`pip install 'kopa[inspect]'`; `inspect eval kopa/kopa_bench --model …`).

Inspect finds the task through the `inspect_ai` entry point (`kopa.inspect_eval._registry`). Each sample is
one kopa episode, played by kopa's own agent loop (`OpenAIAgentPolicy`) on a fresh `Environment` with the
tools in process, the model being Inspect's (`InspectChatModel`), and scored by kopa's own scorers on the
stored episode — so the verdicts, methods and ACTION equal `kopa bench run` + `kopa bench score`.
"""
