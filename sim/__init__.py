"""The deterministic simulator of the ten platforms.

It owns the truth (which entity each parameter and field carries) and answers HTTP exactly as the
real services do. Nothing in `kopa/` imports from here except `kopa.backends` (to mount it as a
transport) and studies/tests that ask `sim.truth` explicitly.
"""

GENERATOR_VERSION = "5"
