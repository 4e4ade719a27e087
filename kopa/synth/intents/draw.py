"""Which question trajectory `index` asks: a type drawn toward the paper's mix (seed §5.5), a domain, then an
intent of that type and domain from the bank — each from the stream (seed, index), so any index can be
built alone, in any order, on any worker."""

from __future__ import annotations

from kopa.bank.model import Intent
from kopa.rng import stream
from kopa.synth.candidate import Candidate, Failure
from kopa.synth.intents.realize import BankContext, realize

# The paper's type mix (seed §5.5) as draw weights; a type whose intents realize less often is kept less
# often, so the weights are set from what the full world keeps, not copied.
CATEGORY_WEIGHTS = {"MIXED": 36.7, "DRV": 19.7, "SEM": 17.0, "SEQ": 12.1, "CMP": 9.0, "COND": 2.8, "FAN": 2.7}
TRIES = 6  # realizations of the drawn intent (new slot values each) before the slot fails


def drawn_intent(ctx: BankContext, index: int) -> Intent | None:
    rng = stream(ctx.seed, "intent-draw", str(index))
    by_category: dict[str, dict[str, list[Intent]]] = {}
    for intent in ctx.usable:
        by_category.setdefault(intent.category, {}).setdefault(ctx.domain_of(intent), []).append(intent)
    categories = [c for c in CATEGORY_WEIGHTS if c in by_category]
    if not categories:
        return None
    weights = [CATEGORY_WEIGHTS[c] for c in categories]
    category = categories[int(rng.choice(len(categories), p=[w / sum(weights) for w in weights]))]
    domains = sorted(by_category[category])
    intents = by_category[category][domains[int(rng.integers(len(domains)))]]
    total = sum(i.weight for i in intents)
    return intents[int(rng.choice(len(intents), p=[i.weight / total for i in intents]))]


def synthesize_intent(ctx: BankContext, index: int) -> Candidate | Failure:
    """Trajectory `index`: a drawn intent realized, trying new slot values up to TRIES times."""
    intent = drawn_intent(ctx, index)
    if intent is None:
        return Failure(index=index, reason="no_intent")
    failure = Failure(index=index, reason="no_intent", intent=intent.id)
    for attempt in range(TRIES):
        made = realize(ctx, intent, index, attempt)
        if isinstance(made, Candidate):
            return made
        failure = made.model_copy(update={"intent": intent.id})
    return failure
