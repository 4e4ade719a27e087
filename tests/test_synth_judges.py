"""Stage 2's model judges: two must agree before a task drops; what they see; replies read as data only.

The chat models here are scripted test doubles (a fixed reply per framing): the tests check what the filter
does with the votes — the agreement rule, abstentions, counting beside the exact checks, the replay cache —
not how good any model's judgement is."""

from __future__ import annotations

from pathlib import Path

import pytest

from kopa.backends.spec import open_backend
from kopa.bank.model import load_bank
from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.run import build_graph
from kopa.llm.cache import CachedChatModel, CacheMiss
from kopa.llm.client import ChatReply
from kopa.synth.candidate import Candidate
from kopa.synth.filters import filter_candidates
from kopa.synth.handoffs import intermediate_values
from kopa.synth.intents.realize import BankContext, realize
from kopa.synth.judges import evidence, judge_pair, parse_vote

CATALOG = load_catalog()
TOOLS = [t for t in CATALOG if t.platform in {"krx", "kdic", "assembly", "dart"} and t.spec.real
         and t.family != "session"]


class Scripted:
    """Replies by framing: the Korean prompt (judge 0) and the English one (judge 1) get their own reply."""

    def __init__(self, korean: str, english: str, model: str = "scripted") -> None:
        self.model = model
        self.replies = {"ko": korean, "en": english}
        self.seen: list[list[dict]] = []

    def request_params(self, params):
        return dict(params)

    def complete(self, messages, tools=None, **params):
        self.seen.append(messages)
        korean = "검수자" in messages[0]["content"]
        return ChatReply(content=self.replies["ko" if korean else "en"])


YES = '{"verdict": "yes", "reason": "질문이 코드를 말한다"}'
NO = '{"verdict": "no", "reason": "fine"}'


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> list[Candidate]:
    """Candidates the exact checks keep (so only the model judges can drop them)."""
    phase, _ = build_graph(tmp_path_factory.mktemp("g"), EdgeConfig(T=2, M=40, seed=7), "sim", tools=TOOLS)
    bank = load_bank(Path(__file__).parent / "data" / "intents")
    ctx = BankContext(phase.graph, CATALOG, open_backend("sim"), seed=0, intents=bank, check_graph=False)
    built = [c for c in (realize(ctx, intent, k, 0) for k, intent in enumerate(bank)) if isinstance(c, Candidate)]
    kept, _, _ = filter_candidates(built, CATALOG, open_backend("sim"), lambda: open_backend("sim"), {})
    assert len(kept) >= 3
    return kept[:3]


def _filter(candidates, model_a, model_b=None):
    judges = judge_pair([model_a] if model_b is None else [model_a, model_b])
    return filter_candidates(candidates, CATALOG, open_backend("sim"), lambda: open_backend("sim"), {},
                             judges=judges)


def test_both_judges_must_say_yes(clean):
    kept, drops, notes = _filter(clean, Scripted(YES, NO))
    assert len(kept) == len(clean) and drops == [] and notes["judges_leak_dropped"] == 0
    kept, drops, notes = _filter(clean, Scripted(YES, YES))
    assert kept == [] and {d.reason for d in drops} == {"answer_leaking"}
    assert all(d.stage == 2 and d.detail.startswith("two model judges agree") for d in drops)
    assert notes["judges_leak_dropped"] == len(clean) and notes["exact_leak"] == 0


def test_two_models_each_judge_in_its_own_framing(clean):
    a, b = Scripted(NO, YES), Scripted(NO, YES, model="other")  # a is asked in Korean only, b in English only
    kept, _drops, _ = _filter(clean, a, b)
    assert len(kept) == len(clean)  # judge 0 (model a) says no, judge 1 (model b) yes: nothing drops
    assert len(a.seen) == 2 * len(clean) and len(b.seen) == 2 * len(clean)
    assert all("검수자" in m[0]["content"] for m in a.seen) and all("review" in m[0]["content"] for m in b.seen)


def test_unreadable_replies_abstain_and_never_drop(clean):
    kept, drops, notes = _filter(clean, Scripted("yes!", "__import__('os').system('echo')"))
    assert len(kept) == len(clean) and drops == []
    assert notes["judge_abstentions"] == 4 * len(clean)
    assert parse_vote('판단: {"verdict": "YES", "reason": "r"} 끝').verdict == "yes"
    assert parse_vote('{"verdict": "maybe"}').verdict == "abstain"
    assert parse_vote("{not json}").verdict == "abstain"


def test_a_judge_sees_the_chain_and_what_it_handed_on_and_replays_from_its_cache(clean, tmp_path):
    c = clean[0]
    shown = evidence(c, 0)
    assert shown["query"] == c.task.query and shown["intermediate_values"] == intermediate_values(c)
    assert [s["step"] for s in shown["steps"]] == [s.id for s in c.task.golden]
    assert next(iter(evidence(c, 1))) == "answer"  # the other framing reads the evidence in another order
    recorded = Scripted(YES, YES)
    first = _filter([c], CachedChatModel(recorded, tmp_path))
    replayed = _filter([c], CachedChatModel(Scripted(NO, NO), tmp_path, mode="replay"))
    assert first[1] == replayed[1] and len(first[1]) == 1
    with pytest.raises(CacheMiss):
        _filter([c], CachedChatModel(Scripted(NO, NO), tmp_path / "empty", mode="replay"))
