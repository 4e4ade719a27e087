"""EDGE Phase B, question first (seed §5.3): a bank of hand-written question intents, each realized on G*.

An intent is a question a person asks, written in the register of KOPA-Bench's queries, with typed slots
(a company by name, a month, a threshold observed in the data), the golden steps that answer it — the
relation path over the catalog's tools, the API's own filters first — and the pattern its junctions take
(SEQ / FAN / DRV by executed cardinality, SEM / CMP / COND templates). Synthesis draws an intent, fills its
slots from what the services return, executes it, types every handoff by the cardinality it really had,
checks each handoff is a retained edge of G*, and keeps the realization only when it has the pattern the
question was written for.

- `model`    the bank's schema and loader (`bank/*.yaml`, one file per platform), checked against the catalog
- `slots`    filling slots: names from listing calls, dates from today, choices, pivots from executed results
- `links`    which earlier step each call takes its values from, and how: the junction and its kind
- `realize`  one intent realized into a `Candidate` (the task, its target, its structure)
"""
