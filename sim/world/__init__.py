"""What a world is made of: Korean entities with real-format codes (names, regions, companies, schools,
prices), the seeded streams they are drawn from, and the tables they fill. Building a world into DuckDB and
loading it is `sim.world_file`, which reads the platforms; nothing here imports them, so the two never cycle."""
