#!/usr/bin/env bash
# GRPO with verl as in the paper (seed §6.1): trained on an EDGE Phase B dataset, validated on KOPA-Bench
# (before training and every TEST_FREQ steps); binary reward on RESPONSE / ENVIRONMENT from kopa's scorers,
# 4 rollouts per task, multi-turn tool calling through kopa's tools on any backend. Needs GPUs,
# `pip install 'kopa[rl-gpu]'` (verl's own vLLM set, resolved in CI by `nox -s rl_gpu_recipe`; a bare `vllm`
# beside 'kopa[rl]' takes a release whose transformers verl 0.9.1 cannot import) and the model's weights.
#
#   TASKS=runs/synth bash benchmark/rl/grpo_kopa.sh       # Phase B's folder, Qwen/Qwen3.5-4B, vLLM, 8 GPUs
#   TASKS=runs/synth MODEL=Qwen/Qwen3.5-9B bash benchmark/rl/grpo_kopa.sh trainer.total_epochs=3
#   TRAIN_ON_KOPA_BENCH=1 bash benchmark/rl/grpo_kopa.sh  # trains on the set it validates on: nothing held out
#
# Every override below is checked in CI by composing it with verl's own Hydra config (tests/test_rl_verl.py);
# extra arguments are appended as further overrides.
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen3.5-4B}
# verl's parser for the tool calls MODEL writes (Qwen3.5: XML, qwen3_coder; Qwen3: JSON, hermes): a parser that
# does not match reads no call. `kopa rl tool-format --list` shows the families; another model: set FORMAT.
FORMAT=${FORMAT:-$(kopa rl tool-format "$MODEL")}
ENGINE=${ENGINE:-vllm}                 # vllm or sglang
BACKEND=${BACKEND:-sim}                # where the tools answer: sim, replay:DIR, faults:realistic@sim, live
TASKS=${TASKS:-}                       # the training task set: an EDGE Phase B folder (kopa edge filter's)
TRAIN_ON_KOPA_BENCH=${TRAIN_ON_KOPA_BENCH:-}  # 1: train on KOPA-Bench itself (no TASKS), the validation set too
HELD_OUT=${HELD_OUT:-}                 # platforms kept out of training (the paper's: seoul,dart,krx); their
                                       # KOPA-Bench tasks are written to $OUT/train.heldout.parquet
EXPERIMENT=${EXPERIMENT:-}             # verl's experiment name (default grpo-<model>)
TEST_FREQ=${TEST_FREQ:-10}             # validate on KOPA-Bench every this many steps (and before the first)
TOOL_CHARS=${TOOL_CHARS:-24000}        # a tool result is cut to this many characters: `kopa bench run`'s default,
                                       # so training, validation and evaluation read the same results
OUT=${OUT:-runs/rl-grpo}
GPUS=${GPUS:-8}
N=${N:-4}                              # rollouts per task (the GRPO group)
BATCH=${BATCH:-32}                     # tasks per step

TASKS_ARG=()
if [ -n "$TASKS" ]; then
    TASKS_ARG=(--tasks "$TASKS")
elif [ "$TRAIN_ON_KOPA_BENCH" = 1 ]; then
    echo "grpo_kopa.sh: training on KOPA-Bench, the set it validates on: its validation scores are not held out" >&2
else
    echo "grpo_kopa.sh: set TASKS to an EDGE Phase B dataset (kopa edge synth, then kopa edge filter); KOPA-Bench is the validation set (TRAIN_ON_KOPA_BENCH=1 trains on it anyway)" >&2
    exit 2
fi
# what training needs, checked before anything is exported
source "$(dirname "$0")/require_gpu.sh"
require_gpu grpo_kopa.sh verl
mkdir -p "$OUT"
HELD_OUT_ARG=()
if [ -n "$HELD_OUT" ]; then
    HELD_OUT_ARG=(--held-out-platforms "$HELD_OUT")
fi
kopa rl export --format verl "${TASKS_ARG[@]}" "${HELD_OUT_ARG[@]}" -o "$OUT/train.parquet"
kopa rl export --format verl -o "$OUT/val.parquet"                  # validation: KOPA-Bench
# one tool config for both sets' tools; every sample names its own task set
kopa rl verl-config "${TASKS_ARG[@]}" --with-kopa-bench --backend "$BACKEND" --max-tool-chars "$TOOL_CHARS" \
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
    data.max_response_length=32768 \
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
    actor_rollout_ref.rollout.multi_turn.format="$FORMAT" \
    actor_rollout_ref.rollout.multi_turn.tool_config_path="$OUT/kopa_tools.yaml" \
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=16 \
    actor_rollout_ref.rollout.multi_turn.max_parallel_calls=8 \
    actor_rollout_ref.rollout.multi_turn.max_tool_response_length=$((TOOL_CHARS + 100)) \
    actor_rollout_ref.rollout.agent.default_agent_loop=kopa_tool_agent \
    actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1 \
    reward.custom_reward_function.path=pkg://kopa.rl.reward \
    reward.custom_reward_function.name=compute_score \
    trainer.project_name=kopa \
    trainer.experiment_name="${EXPERIMENT:-grpo-$(basename "$MODEL")}" \
    trainer.logger='["console"]' \
    trainer.n_gpus_per_node="$GPUS" \
    trainer.nnodes=1 \
    trainer.save_freq=20 \
    trainer.test_freq="$TEST_FREQ" \
    trainer.val_before_train=True \
    trainer.total_epochs=1 \
    trainer.default_local_dir="$OUT/checkpoints" \
    "$@"
