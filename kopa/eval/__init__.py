"""KOPA-Bench: tasks, golden trajectories, the episode loop, policies, scorers and reports."""
