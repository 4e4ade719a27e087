#!/usr/bin/env bash
# The paper's training experiments (seed §6.1-6.3) from one EDGE Phase B folder: the data each needs, and per
# experiment one script that trains it and one that evaluates it, listed in $OUT/EXPERIMENTS.md.
#
#   TASKS=runs/synth bash benchmark/rl/experiments.sh                 # writes runs/experiments
#   bash runs/experiments/train/grpo-full-Qwen3.5-4B.sh               # needs GPUs (grpo_kopa.sh)
#   URL=http://localhost:8000/v1 bash runs/experiments/eval/grpo-full-Qwen3.5-4B.sh   # the model served there
#
# Writing needs no GPU: the SFT data (the training set's golden trajectories, verified), the held-out split and
# its KOPA-Bench subset, and the scripts. Training is grpo_kopa.sh (GRPO) or sft_trl.py (SFT); every
# evaluation is `kopa bench run` with 4 rollouts under 8 policy seeds: pass@1 (the mean of 4), pass@4, Action,
# and 95% CIs over the seeds, as the paper's tables report them.
set -euo pipefail

TASKS=${TASKS:-}                              # the Phase B folder (kopa edge filter's), ablations/ inside it
OUT=${OUT:-runs/experiments}
MODELS=${MODELS:-Qwen/Qwen3.5-4B Qwen/Qwen3.5-9B}   # the backbones of §6.2; the ablations use the first
HELD_OUT=${HELD_OUT:-seoul,dart,krx}          # platforms no training task may call (§6.2's generalisation)
SEEDS=${SEEDS:-0,1,2,3,4,5,6,7}               # policy seeds of every evaluation
ROLLOUTS=${ROLLOUTS:-4}

if [ -z "$TASKS" ] || [ ! -d "$TASKS/tasks" ]; then
    echo "experiments.sh: set TASKS to an EDGE Phase B folder (kopa edge synth, then kopa edge filter)" >&2
    exit 2
fi
for name in sequential parallel_mixed unfiltered; do
    if [ ! -d "$TASKS/ablations/$name/tasks" ]; then
        echo "experiments.sh: $TASKS/ablations/$name is not a task set: run kopa edge filter $TASKS again" >&2
        exit 2
    fi
done
KOPA=$(cd "$(dirname "$0")/../.." && pwd)     # grpo_kopa.sh and sft_trl.py are run from the checkout
TASKS=$(cd "$TASKS" && pwd)
mkdir -p "$OUT"/data "$OUT"/train "$OUT"/eval
OUT=$(cd "$OUT" && pwd)

# (1) SFT's data: each training task's golden trajectory, kept only where it earns reward 1
kopa rl rollouts --tasks "$TASKS" --policy oracle -n 1 --out "$OUT/data/golden"
kopa rl export --format sft --from "$OUT/data/golden" --held-out-platforms "$HELD_OUT" -o "$OUT/data/sft.jsonl"
# the held-out split: what GRPO trains on, the contamination audit, the KOPA-Bench tasks of the held-out platforms
kopa rl export --format verl --tasks "$TASKS" --held-out-platforms "$HELD_OUT" -o "$OUT/data/train.parquet"
HELD_OUT_IDS=$(python3 - "$OUT/data/train.heldout.parquet" <<'PY'
import sys, duckdb
rows = duckdb.sql(f"SELECT extra_info.task_id FROM read_parquet('{sys.argv[1]}') ORDER BY 1").fetchall()
print(",".join(r[0] for r in rows))
PY
)

slug() { basename "$1"; }
q() { printf %q "$1"; }  # a path as the written scripts must quote it: a checkout's path may hold a space
train_grpo() {  # NAME MODEL TASK_SET
    cat > "$OUT/train/$1.sh" <<EOF
#!/usr/bin/env bash
# GRPO: $1 (written by benchmark/rl/experiments.sh)
TASKS=$(q "$3") MODEL=$(q "$2") HELD_OUT=$(q "$HELD_OUT") EXPERIMENT=$(q "$1") OUT=$(q "$OUT/runs/$1") \\
    bash $(q "$KOPA/benchmark/rl/grpo_kopa.sh") "\$@"
EOF
}
train_sft() {  # NAME MODEL
    cat > "$OUT/train/$1.sh" <<EOF
#!/usr/bin/env bash
# SFT on the verified golden trajectories: $1 (written by benchmark/rl/experiments.sh)
python3 $(q "$KOPA/benchmark/rl/sft_trl.py") --data $(q "$OUT/data/sft.jsonl") --model $(q "$2") \\
    --out $(q "$OUT/runs/$1") "\$@"
EOF
}
evaluate() {  # NAME SERVED_MODEL [--only IDS]
    local name=$1 model=$2
    shift 2
    cat > "$OUT/eval/$name.sh" <<EOF
#!/usr/bin/env bash
# KOPA-Bench for $name: the model served at \$URL (an OpenAI-compatible server, e.g. vllm serve) under the name
# \${SERVED:-$model}. Written by benchmark/rl/experiments.sh.
: "\${URL:?set URL to the server's /v1 address}"
kopa bench run --policy openai --role agent="\${SERVED:-$model}@\$URL" -n $ROLLOUTS --policy-seeds $SEEDS $* \\
    --out $(q "$OUT/eval/$name") "\$@"
EOF
}

rows=()
for model in $MODELS; do
    s=$(slug "$model")
    evaluate "base-$s" "$model"
    train_grpo "grpo-full-$s" "$model" "$TASKS"
    evaluate "grpo-full-$s" "$OUT/runs/grpo-full-$s/checkpoints"
    rows+=("| §6.2 main, $s | base | – | eval/base-$s.sh |")
    rows+=("| §6.2 main, $s | GRPO, full set | train/grpo-full-$s.sh | eval/grpo-full-$s.sh |")
done
first=$(set -- $MODELS; echo "$1")
s=$(slug "$first")
evaluate "base-$s-heldout" "$first" --only "$HELD_OUT_IDS"
evaluate "grpo-full-$s-heldout" "$OUT/runs/grpo-full-$s/checkpoints" --only "$HELD_OUT_IDS"
rows+=("| §6.2 held-out platforms ($HELD_OUT), $s | GRPO, full set | train/grpo-full-$s.sh | eval/base-$s-heldout.sh, eval/grpo-full-$s-heldout.sh |")
train_sft "sft-$s" "$first"
evaluate "sft-$s" "$OUT/runs/sft-$s"
rows+=("| §6.3 (1) objective, $s | SFT on verified trajectories | train/sft-$s.sh | eval/sft-$s.sh |")
for name in sequential parallel_mixed; do
    train_grpo "grpo-$name-$s" "$first" "$TASKS/ablations/$name"
    evaluate "grpo-$name-$s" "$OUT/runs/grpo-$name-$s/checkpoints"
    rows+=("| §6.3 (2) composition, $s | GRPO, $name | train/grpo-$name-$s.sh | eval/grpo-$name-$s.sh |")
done
train_grpo "grpo-unfiltered-$s" "$first" "$TASKS/ablations/unfiltered"
evaluate "grpo-unfiltered-$s" "$OUT/runs/grpo-unfiltered-$s/checkpoints"
rows+=("| §6.3 (3) filtering, $s | GRPO, before filtering | train/grpo-unfiltered-$s.sh | eval/grpo-unfiltered-$s.sh |")
chmod +x "$OUT"/train/*.sh "$OUT"/eval/*.sh

{
    echo "# The paper's training experiments on $TASKS"
    echo
    echo "Every GRPO run trains with HELD_OUT=$HELD_OUT kept out and validates on KOPA-Bench; every evaluation is"
    echo "\`kopa bench run\` with $ROLLOUTS rollouts under policy seeds $SEEDS (pass@1 = the mean of $ROLLOUTS, pass@$ROLLOUTS,"
    echo "Action, 95% CIs over the seeds). Serve a trained checkpoint (verl's, converted to Hugging Face format, or"
    echo "sft_trl.py's folder) with an OpenAI-compatible server, then run its eval script with URL= (and SERVED= the"
    echo "name it is served under). §6.3 (4), the graph's execution evidence, is Phase A's (kopa edge graph build's"
    echo "report), not a training run."
    echo
    echo "| experiment | training | train | evaluate |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Data: data/sft.jsonl (SFT), data/train.parquet with its contamination report (data/train.contamination.md),"
    echo "data/train.heldout.parquet: the KOPA-Bench tasks that need only $HELD_OUT ($HELD_OUT_IDS)."
} > "$OUT/EXPERIMENTS.md"
echo "experiments.sh: $OUT/EXPERIMENTS.md lists ${#rows[@]} experiments; scripts in $OUT/train and $OUT/eval" >&2
