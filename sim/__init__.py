"""The deterministic simulator of the catalog's platforms (one package each under `sim/platforms/`).

It owns the truth (which entity each parameter and field carries) and answers HTTP exactly as the
real services do. Nothing in `kopa/` imports from here except `kopa.backends` (to mount it as a
transport) and studies/tests that ask `sim.truth` explicitly.
"""

# Bumped when a world's meaning changes without its sources changing; the world file name also carries a
# digest of the generator sources (sim.world_file.generator_digest).
GENERATOR_VERSION = "5"
