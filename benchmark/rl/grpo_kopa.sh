#!/usr/bin/env bash
# GRPO on KOPA-Bench tasks (or a synthesized task set) with verl, as in the paper (seed §6.1): binary reward
# on RESPONSE / ENVIRONMENT from kopa's scorers, 4 rollouts per task, multi-turn tool calling through kopa's
# tools on any backend. Needs GPUs, `pip install 'kopa[rl]' vllm` (or sglang) and the model's weights.
#
#   bash benchmark/rl/grpo_kopa.sh                       # KOPA-Bench, Qwen/Qwen3.5-4B, vLLM, 8 GPUs
#   TASKS=runs/edge-synth MODEL=Qwen/Qwen3.5-9B bash benchmark/rl/grpo_kopa.sh trainer.total_epochs=3
#
# Every override below is checked in CI by composing it with verl's own Hydra config (tests/test_rl_verl.py);
# extra arguments are appended as further overrides.
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen3.5-4B}
ENGINE=${ENGINE:-vllm}                 # vllm or sglang
BACKEND=${BACKEND:-sim}                # where the tools answer: sim, replay:DIR, faults:realistic@sim, live
TASKS=${TASKS:-}                       # the training task set (e.g. EDGE Phase B's folder); empty: KOPA-Bench
OUT=${OUT:-runs/rl-grpo}
GPUS=${GPUS:-8}
N=${N:-4}                              # rollouts per task (the GRPO group)
BATCH=${BATCH:-32}                     # tasks per step

mkdir -p "$OUT"
TASKS_ARG=()
[ -n "$TASKS" ] && TASKS_ARG=(--tasks "$TASKS")
kopa rl export --format verl "${TASKS_ARG[@]}" -o "$OUT/train.parquet"
kopa rl export --format verl -o "$OUT/val.parquet"                  # validation: KOPA-Bench
# one tool config for both sets' tools; every sample names its own task set
kopa rl verl-config "${TASKS_ARG[@]}" --with-kopa-bench --backend "$BACKEND" --max-tool-chars 4000 \
    -o "$OUT/kopa_tools.yaml"

# Two verl defaults do not fit these APIs: multi_turn.max_parallel_calls=1 would run only the first of the
# calls a model issues together (most KOPA-Bench tasks do), and max_tool_response_length=256 characters cuts
# every result; kopa cuts results to whole records at --max-tool-chars, below verl's limit. The length filter
# is off: verl's filter counts every tool of the config into each prompt, while a sample is offered only its
# own tools (extra_info.tool_selection); a prompt over max_prompt_length is left-truncated by the agent loop.

python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    algorithm.norm_adv_by_std_in_grpo=True \
    algorithm.use_kl_in_reward=False \
    data.train_files="$OUT/train.parquet" \
    data.val_files="$OUT/val.parquet" \
    data.train_batch_size="$BATCH" \
    data.max_prompt_length=8192 \
    data.max_response_length=16384 \
    data.filter_overlong_prompts=False \
    data.truncation=error \
    data.return_raw_chat=True \
    actor_rollout_ref.model.path="$MODEL" \
    actor_rollout_ref.model.use_remove_padding=True \
    actor_rollout_ref.model.enable_gradient_checkpointing=True \
    actor_rollout_ref.actor.optim.lr=1e-6 \
    actor_rollout_ref.actor.ppo_mini_batch_size=16 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
    actor_rollout_ref.actor.use_kl_loss=True \
    actor_rollout_ref.actor.kl_loss_coef=0.001 \
    actor_rollout_ref.actor.kl_loss_type=low_var_kl \
    actor_rollout_ref.actor.entropy_coeff=0 \
    actor_rollout_ref.rollout.name="$ENGINE" \
    actor_rollout_ref.rollout.mode=async \
    actor_rollout_ref.rollout.n="$N" \
    actor_rollout_ref.rollout.temperature=1.0 \
    actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
    actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1 \
    actor_rollout_ref.rollout.multi_turn.enable=True \
    actor_rollout_ref.rollout.multi_turn.format=hermes \
    actor_rollout_ref.rollout.multi_turn.tool_config_path="$OUT/kopa_tools.yaml" \
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=16 \
    actor_rollout_ref.rollout.multi_turn.max_parallel_calls=8 \
    actor_rollout_ref.rollout.multi_turn.max_tool_response_length=4096 \
    actor_rollout_ref.rollout.agent.default_agent_loop=tool_agent \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
    reward.custom_reward_function.path=pkg://kopa.rl.reward \
    reward.custom_reward_function.name=compute_score \
    trainer.project_name=kopa \
    trainer.experiment_name="grpo-$(basename "$MODEL")" \
    trainer.logger='["console"]' \
    trainer.n_gpus_per_node="$GPUS" \
    trainer.nnodes=1 \
    trainer.save_freq=20 \
    trainer.test_freq=-1 \
    trainer.val_before_train=False \
    trainer.total_epochs=1 \
    trainer.default_local_dir="$OUT/checkpoints" \
    "$@"
