"""ENVIRONMENT: does the end state equal the golden's? SHA-256 of the canonical state, plus a readable diff.

The verdict is the hash comparison alone (seed §4.4); the diff only explains a mismatch, path by path:
``data.watchlist[1].code: '005930' → '000660'``, ``issued: + krx``, ``data.fuel: + 30``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from kopa.tools.state import EpisodeState

__all__ = ["EnvironmentVerdict", "score_environment", "state_diff", "stored_state_hash"]

_MAX_SHOWN = 120


class EnvironmentVerdict(BaseModel):
    passed: bool
    diff: list[str]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _is_scalar_list(value: Any) -> bool:
    return isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def state_diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Differences from ``expected`` to ``actual``: changed, added (+) and removed (-) paths."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in sorted(set(expected) | set(actual), key=str):
            sub = _key(path, str(key))
            if key not in actual:
                out.append(f"{sub}: - {_show(expected[key])}")
            elif key not in expected:
                out.append(f"{sub}: + {_show(actual[key])}")
            else:
                out += state_diff(expected[key], actual[key], sub)
        return out
    if _is_scalar_list(expected) and _is_scalar_list(actual) and expected != actual:
        # Set-like lists (issued key systems, codes): membership says more than positions.
        missing = [v for v in expected if v not in actual]
        extra = [v for v in actual if v not in expected]
        if missing or extra:
            return [f"{path}: - {v}" for v in missing] + [f"{path}: + {v}" for v in extra]
        return [f"{path}: {_show(expected)} → {_show(actual)}"]  # same members, another order or count
    if isinstance(expected, list) and isinstance(actual, list):
        out = []
        for index in range(max(len(expected), len(actual))):
            sub = f"{path}[{index}]"
            if index >= len(actual):
                out.append(f"{sub}: - {_show(expected[index])}")
            elif index >= len(expected):
                out.append(f"{sub}: + {_show(actual[index])}")
            else:
                out += state_diff(expected[index], actual[index], sub)
        return out
    if expected != actual or type(expected) is not type(actual):
        return [f"{path or '<root>'}: {_show(expected)} → {_show(actual)}"]
    return []


def score_environment(target_state: dict, target_hash: str, state_canonical: dict, state_hash: str
                      ) -> EnvironmentVerdict:
    """Pass when the end state's SHA-256 equals the golden's; otherwise list what differs."""
    if state_hash == target_hash:
        return EnvironmentVerdict(passed=True, diff=[])
    diff = state_diff(target_state, state_canonical)
    if not diff:  # same visible content, different hash: canonicalisation differs (e.g. key order, types)
        diff = [f"hash {state_hash[:12]}… ≠ target {target_hash[:12]}… with no visible difference"]
    return EnvironmentVerdict(passed=False, diff=diff)


def stored_state_hash(state: dict[str, Any]) -> str:
    """The SHA-256 of a stored end state, computed the way the environment computes it now — so a fix to
    canonicalisation re-scores stored runs instead of trusting the hash written at run time."""
    return EpisodeState.model_validate(state).hash()

