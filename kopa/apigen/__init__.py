"""APIGen (seed 003) over kopa's catalog and backends: the baseline EDGE is compared with.

- `record`     the unified xlam-function-calling-60k format (`id`, `query`, `tools`, `answers`), lenient on
               input (JSON strings or lists, `"str, optional"` types), one shape on output;
- `values`     the validated value cache: argument values the backend has really returned;
- `sampler`    the API sampler, the example sampler (verified data fed back) and the prompt sampler;
- `generator`  the generator role: offline templates (the default) or an OpenAI-compatible model;
- `wording`    how the offline generator words a query: what is statable, how a value is said, sentence frames;
- `verify`     stage 1 (format) and stage 2 (execution on any backend, environmental failures apart);
- `semantic`   stage 3: the offline rule checker (saying which criteria it decides) or a chat model;
- `relevance`  relevance-detection samples made from verified ones;
- `run`        the run folders of `kopa apigen generate` and `kopa apigen verify`: resumable by chunk;
- `report`     the seed's Table 1 per generator, reasons per stage, the run's Markdown report;
- `compare`    `kopa compare synth`: APIGen beside EDGE Phase B on one inventory, backend and budget.
"""
