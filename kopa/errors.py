"""The one base of every error a user can cause and fix: a bad option, file, backend string or input.

The CLI prints such an error as one line (what, and where: file and line, option and value, the valid
choices) and exits non-zero; `kopa --debug …` shows the traceback too. Anything else is a bug and keeps
its traceback. Error classes of the layers inherit this beside their own base (`class BackendError(
UserError, ValueError)`), so the layers stay free of CLI code.
"""

from __future__ import annotations


class UserError(Exception):
    """An error in what the user gave; its message is the one line the CLI prints."""

    exit_code = 2
