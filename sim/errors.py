"""The simulator's base for errors in what a user gave it (a fault profile, a drift scenario).

`sim` never imports `kopa` (tests/test_layers.py), so it cannot inherit `kopa.errors.UserError`; its
input errors share this base instead, so one `except SimInputError` covers every bad spec a `kopa sim …`
command can be given, and kopa's backend layer wraps it in its own `BackendError` (a UserError) where a
backend string names the spec. Messages name the file (or the name) and the field at fault.
"""

from __future__ import annotations


class SimInputError(ValueError):
    """A spec the simulator was given that cannot be used; the message says what and where."""
