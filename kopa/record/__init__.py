"""Recording layer: vcrpy-format cassettes of raw HTTP and DuckDB snapshots of tool calls, captured
from any backend with secrets scrubbed before anything touches disk; strict offline replay from either."""
