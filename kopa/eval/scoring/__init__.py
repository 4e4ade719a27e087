"""KOPA-Bench scorers (seed §4.4): RESPONSE, ENVIRONMENT, ACTION, and the episode score that gates ACTION."""

from kopa.eval.scoring.action import ActionVerdict, score_action
from kopa.eval.scoring.environment import EnvironmentVerdict, score_environment
from kopa.eval.scoring.episode import score_episode
from kopa.eval.scoring.response import ResponseVerdict, extract_boxed, score_response

__all__ = [
    "ActionVerdict",
    "EnvironmentVerdict",
    "ResponseVerdict",
    "extract_boxed",
    "score_action",
    "score_environment",
    "score_episode",
    "score_response",
]
