"""kopa: a recorded-replay testbed for multi-step tool calling over Korean open public APIs."""

__version__ = "0.1.0"
