"""EDGE Phase B (seed §5.3–5.5): cardinality-typed trajectory synthesis on G*, Korean queries, and the
three-stage filter that turns executed trajectories into a verified KOPA-Bench-format training set.

- `junction`   types a handoff by the executed cardinality of its field (SEQ / FAN / DRV) and picks the
               DRV process node (max, min, ≥, ≤, equality, date-after) with pivots from observed values;
- `trajectory` walks retained edges of G*, executing each step as a golden step, into a `Candidate`;
- `query`      writes the Korean question (offline templates; an OpenAI-compatible writer as an option);
- `filters`    Stage 1 rules, Stage 2 leak / decorative-chain judges (the latter by execution), Stage 3
               re-solving on a fresh environment;
- `dataset`    the run folder: resumable synthesis, the filtered task set, JSONL, the report.
"""
