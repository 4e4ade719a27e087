"""World building: Korean entities with real-format codes, stored in DuckDB."""
