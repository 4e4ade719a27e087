"""kopa.edge.fill: the one first-call filler draws the first value of a declared precedence, builds a source
only when every earlier one gave nothing, and draws from the stream only in a source that gives."""

from collections.abc import Iterator

import numpy as np

from kopa.edge.fill import Given, Guess, OneOf, Source, first_value


def test_the_first_source_that_gives_wins() -> None:
    rng = np.random.default_rng(0)
    assert first_value([OneOf(()), Given(None), Given("20260130"), Given("later")], rng) == "20260130"
    assert first_value([OneOf(()), Given(None)], rng) is None


def test_a_falsy_value_is_a_value() -> None:
    assert first_value([Given(0), Given(5)], np.random.default_rng(0)) == 0
    assert first_value([Given(""), Given("x")], np.random.default_rng(0)) == ""


def test_later_sources_are_not_built() -> None:
    built: list[str] = []

    def sources() -> Iterator[Source]:
        built.append("enum")
        yield OneOf(["A", "B"])
        built.append("cache")  # an expensive filter over the cache: never reached when the enum gives
        yield OneOf(["x"])

    assert first_value(sources(), np.random.default_rng(1)) in ("A", "B")
    assert built == ["enum"]


def test_only_a_giving_source_draws() -> None:
    """An empty list or a default draws nothing, so the value after it is the stream's first draw."""
    alone = np.random.default_rng(7)
    expected = ["a", "b", "c"][int(alone.integers(3))]
    rng = np.random.default_rng(7)
    assert first_value([OneOf(()), Guess((), 1.0), Given(None), OneOf(["a", "b", "c"])], rng) == expected
    assert rng.bit_generator.state == alone.bit_generator.state


def test_a_guess_is_taken_at_its_rate() -> None:
    rng = np.random.default_rng(3)
    draws = [first_value([Guess(["g"], 0.25), Given("fallback")], rng) for _ in range(4000)]
    share = draws.count("g") / len(draws)
    assert 0.22 < share < 0.28
    assert first_value([Guess(["g"], 0.0), Given("fallback")], rng) == "fallback"
