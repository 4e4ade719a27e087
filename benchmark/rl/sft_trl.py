"""SFT on verified trajectories with TRL's SFTTrainer: the paper's SFT arm (§6.3 (1), SFT vs GRPO).

    kopa rl rollouts --tasks runs/synth --policy oracle -n 1 --out runs/synth-golden
    kopa rl export --format sft --from runs/synth-golden -o runs/rl/sft.jsonl
    python benchmark/rl/sft_trl.py --data runs/rl/sft.jsonl --model Qwen/Qwen3.5-4B --out runs/rl-sft

The file is read as TRL reads any conversational dataset with tools (`datasets`' JSON loader: each call's
arguments stay an object, the tools are the schema verl and TRL's GRPO show the model). The model's own chat
template renders it. On a GPU it trains in bf16; `--cpu` (or no GPU) trains in float32 on the CPU. Then
evaluate the saved model as the README's §6.3 block does (`kopa bench run --policy openai --role agent=…`).
Needs `pip install trl` (TRL 1.16 is what CI runs it with: tests/test_rl_trl.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path, help="kopa rl export --format sft's JSONL")
    parser.add_argument("--model", required=True, help="a Hugging Face model id or a local model folder")
    parser.add_argument("--out", required=True, type=Path, help="where the trained model is saved")
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--max-steps", type=int, default=-1, help="stop after this many steps (-1: the epochs)")
    parser.add_argument("--lr", type=float, default=1e-5, help="learning rate")
    parser.add_argument("--batch", type=int, default=1, help="trajectories per device and step")
    parser.add_argument("--grad-accum", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", action="store_true", help="train on the CPU even where a GPU is present")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    if not args.data.is_file():
        print(f"sft_trl.py: --data {args.data}: no such file (kopa rl export --format sft writes it)", file=sys.stderr)
        return 2
    import datasets
    import torch
    from trl import SFTConfig, SFTTrainer

    on_gpu = torch.cuda.is_available() and not args.cpu
    data = datasets.load_dataset("json", data_files=str(args.data), split="train",
                                 cache_dir=str(args.out / "datasets-cache"))
    print(f"sft_trl.py: {len(data)} verified trajectories from {args.data}; {'GPU, bf16' if on_gpu else 'CPU'}",
          file=sys.stderr)
    config = SFTConfig(output_dir=str(args.out), num_train_epochs=args.epochs, max_steps=args.max_steps,
                       learning_rate=args.lr, per_device_train_batch_size=args.batch,
                       gradient_accumulation_steps=args.grad_accum, seed=args.seed, bf16=on_gpu, use_cpu=not on_gpu,
                       max_length=None, logging_steps=10, save_strategy="no", report_to=[],
                       model_init_kwargs={"dtype": torch.bfloat16 if on_gpu else torch.float32})
    trainer = SFTTrainer(model=args.model, args=config, train_dataset=data)
    trainer.train()
    trainer.save_model(str(args.out))
    losses = [round(h["loss"], 4) for h in trainer.state.log_history if "loss" in h]
    print(f"sft_trl.py: saved to {args.out}; loss every 10 steps {losses}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
