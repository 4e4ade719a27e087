"""GRPO rollout groups on any backend, their statistics, and the verl integration (tools, reward, exports).

    kopa.rl.advantages   group-relative advantages as GRPO computes them (verl's compute_grpo_outcome_advantage)
    kopa.rl.policy       the mixed policy: the oracle or a failure-mode habit, drawn per rollout
    kopa.rl.rollouts     `kopa rl rollouts`: n episodes per task, binary reward, Parquet, resumable
    kopa.rl.stats        what a trainer checks before spending GPUs (zero-variance groups, pass@1 / pass@n)
    kopa.rl.export       `kopa rl export --format verl|sft`
    kopa.rl.verl_config  `kopa rl verl-config`: verl's tool config YAML for a task set's tools
    kopa.rl.tool_schema  the tool schema every trainer shows a model (verl, TRL, the SFT export)
    kopa.rl.verl         the verl adapters (imports verl: `pip install 'kopa[rl]'`)
"""
