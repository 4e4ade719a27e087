"""The question bank: what people ask of the catalog's tools, written by hand (`data/*.yaml`, one file per
platform; how to write one: `data/README.md`).

Each intent is a question with typed slots, the golden steps that answer it and the pattern its handoffs
take. Two layers read it: EDGE Phase A takes every handoff the bank's questions make (`hops`) as a proposed
edge of the skeleton, beside the proposer's, to be verified by execution like any other; Phase B realizes
the questions on the resulting G* (`kopa.synth.intents`).

- `model`  the schema and the loader, checked against the catalog
- `links`  which earlier step each call takes its values from, how, and the cardinality that must come out
- `hops`   the tool-to-tool handoffs (source tool, field → target tool, parameter) the whole bank makes
"""
