#!/usr/bin/env bash
# GRPO on kopa's tools on one GPU in a few minutes: a tiny Qwen2 built on the spot (kopa rl tiny-model,
# random weights, nothing downloaded), served by vLLM inside verl, two GRPO steps over KOPA-Bench tasks with
# kopa's tools on the simulator and kopa's reward. Prints steps/s, the tool calls verl executed and the reward.
#
#   pip install 'kopa[rl-gpu]'          # verl 0.9.1 with its own vLLM set
#   bash benchmark/rl/gpu_smoke.sh       # OUT=runs/gpu-smoke
#
# It checks the machinery (vLLM serving the policy, verl's agent loop calling kopa's tools, the reward, an
# update), not learning: a random model seldom writes a well-formed tool call, so the reward is mostly 0.
# Every override goes through grpo_kopa.sh and is composed with verl's Hydra config in CI
# (tests/test_rl_verl.py); the run itself needs a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-runs/gpu-smoke}
# what it needs, checked before anything is built or written
source benchmark/rl/require_gpu.sh
require_gpu gpu_smoke.sh verl vllm
mkdir -p "$OUT"
kopa rl tiny-model "$OUT/model"

start=$(date +%s)
TRAIN_ON_KOPA_BENCH=1 MODEL="$OUT/model" FORMAT=hermes GPUS=1 N=4 BATCH=4 TEST_FREQ=-1 TOOL_CHARS=4000 \
    EXPERIMENT=gpu-smoke OUT="$OUT" bash benchmark/rl/grpo_kopa.sh \
    trainer.total_training_steps=2 \
    trainer.val_before_train=False \
    trainer.save_freq=-1 \
    data.max_prompt_length=16384 \
    data.max_response_length=2048 \
    actor_rollout_ref.actor.ppo_mini_batch_size=4 \
    actor_rollout_ref.actor.use_kl_loss=False \
    actor_rollout_ref.model.enable_gradient_checkpointing=False \
    actor_rollout_ref.rollout.gpu_memory_utilization=0.3 \
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=4 \
    "$@" 2>&1 | tee "$OUT/train.log"
end=$(date +%s)

# verl's console logger writes one "step:N - key:value - …" line per step
python3 - "$OUT/train.log" "$((end - start))" <<'PY'
import re, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8", errors="replace") if re.search(r"\bstep:\d+ - ", l)]
seconds = int(sys.argv[2])
print(f"gpu_smoke: {len(lines)} GRPO steps in {seconds} s ({len(lines) / max(seconds, 1):.3f} steps/s, "
      "model build and vLLM start included)")
for line in lines:
    metrics = dict(re.findall(r"([\w/@.\-]+):([-\d.eE+]+)", line))
    shown = {k: v for k, v in metrics.items()
             if k == "step" or any(s in k for s in ("score", "reward", "num_turns", "tool", "pg_loss"))}
    print("  " + ", ".join(f"{k} {v}" for k, v in shown.items()))
if not lines:
    print("gpu_smoke: no step line in the log; see", sys.argv[1])
    sys.exit(1)
PY
