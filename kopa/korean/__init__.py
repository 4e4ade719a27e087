"""Korean text, written and read, in one place (DESIGN.md: "Korean text is one layer").

Writing — particles that agree with the word before them, numbers, counters and dates as a Korean reader
writes them, what an endpoint answers and how a value is stated — is used by both query writers (EDGE
Phase B's intents in `kopa.synth`, APIGen's generator in `kopa.apigen`); reading — answers in one form —
by the answer scorer (`kopa.eval`). The analyzer underneath is kiwipiepy with its bundled model (offline),
loaded once per process (`kopa.korean.analyzer`).

- `particles`  은/는 · 이/가 · 을/를 · 과/와 · (으)로 … after any word, decided by the analyzer
- `numbers`    numbers as written (6,000 · 4억 7,000만) and as read aloud (for the particle after them)
- `dates`      days, months and years as a person writes them
- `sentence`   a question template with slots and particles (`<company:은>`) filled
- `vocabulary` what a catalog endpoint answers, a value as a person states it, a field as a person names it
- `text`       answer text in one form for comparison; foreign-script tokens in a query
"""
