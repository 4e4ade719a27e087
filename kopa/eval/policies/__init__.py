"""Policies: who plays an episode — the oracle, failure-mode baselines, or a model."""
