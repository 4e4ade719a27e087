"""Which question trajectory `index` asks: a type drawn toward the paper's mix (seed §5.5), then an intent of
that type from the bank — each from the stream (seed, index), so any index can be built alone, in any order,
on any worker."""

from __future__ import annotations

from kopa.bank.model import Choice, Dated, Intent, Observed
from kopa.rng import stream
from kopa.synth.candidate import Candidate, Failure
from kopa.synth.intents.realize import BankContext, realize

# The paper's type mix (seed §5.5) is what the KEPT set should show; a type whose questions Stage 1-3 drop
# more often (MIXED and DRV: repeats of a few-question intent, decorative hops) is drawn more, so the weights
# are set from what the full world keeps (`kopa edge synth --backend sim:scale=full`), not copied. Paper:
# MIXED 36.7, DRV 19.7, SEM 17.0, SEQ 12.1, CMP 9.0, COND 2.8, FAN 2.7.
CATEGORY_WEIGHTS = {"MIXED": 46.0, "DRV": 23.0, "SEM": 17.5, "SEQ": 12.5, "CMP": 9.0, "COND": 3.2, "FAN": 3.0}
TRIES = 6  # realizations of the drawn intent (new slot values each) before the slot fails
# An intent that can ask only a few different questions (no slots, or a choice of three ministries) is drawn
# less: every draw after its few questions is a repeat that Stage 1 drops, and repeats of a type's few-question
# intents bend the kept mix. Below this many questions its weight shrinks in proportion.
FEW_QUESTIONS = 10
PICK_QUESTIONS = 50  # a name picked from a listing: about as many as the listing holds (not probed here)
OBSERVED_QUESTIONS = 3  # a pivot observed in a result: a few thresholds pass 1..φ values


def questions(intent: Intent) -> int:
    """About how many different questions the intent can ask: its asks times its slots' values."""
    n = len(intent.asks)
    for slot in intent.slots.values():
        if isinstance(slot, Choice):
            n *= len(slot.options)
        elif isinstance(slot, Dated):
            n *= slot.back[1] - slot.back[0] + 1
        elif isinstance(slot, Observed):
            n *= OBSERVED_QUESTIONS
        else:
            n *= PICK_QUESTIONS
    return n


def draw_weight(intent: Intent) -> float:
    return intent.weight * min(1.0, questions(intent) / FEW_QUESTIONS)


def drawn_intent(ctx: BankContext, index: int) -> Intent | None:
    rng = stream(ctx.seed, "intent-draw", str(index))
    by_category: dict[str, list[Intent]] = {}
    for intent in ctx.drawable:
        by_category.setdefault(intent.category, []).append(intent)
    categories = [c for c in CATEGORY_WEIGHTS if c in by_category]
    if not categories:
        return None
    weights = [CATEGORY_WEIGHTS[c] for c in categories]
    category = categories[int(rng.choice(len(categories), p=[w / sum(weights) for w in weights]))]
    # an intent of the type by its weight, not a domain first: a domain with few questions of a type would
    # fill its share with repeats (the domain mix follows the bank's, reported beside KOPA-Bench's)
    intents = by_category[category]
    weights = [draw_weight(i) for i in intents]
    return intents[int(rng.choice(len(intents), p=[w / sum(weights) for w in weights]))]


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
