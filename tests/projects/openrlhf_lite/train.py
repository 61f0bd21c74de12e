# Modelled on openrlhf/cli/train_ppo.py: build actor / critic / reward / reference models, optimizers,
# schedulers and dataloaders, then PPOTrainer.fit().
import argparse
import copy
import math

import torch
from torch.utils.data import DataLoader

from openrlhf_lite.datasets import PretrainDataset, PromptDataset
from openrlhf_lite.models import Actor, TinyCausalLM, get_llm_for_sequence_regression
from openrlhf_lite.trainer import PPOTrainer
from openrlhf_lite.utils import get_strategy


def get_scheduler(optimizer, num_warmup_steps, num_training_steps, min_lr_ratio=0.1):
    # transformers.get_scheduler("cosine_with_min_lr", ...)
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step + 1) / float(max(1, num_warmup_steps))
        progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(min_lr_ratio, 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0))))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def get_args(steps):
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_episodes", type=int, default=100)
    parser.add_argument("--rollout_batch_size", type=int, default=4)
    parser.add_argument("--micro_rollout_batch_size", type=int, default=4)
    parser.add_argument("--train_batch_size", type=int, default=4)
    parser.add_argument("--micro_train_batch_size", type=int, default=2)
    parser.add_argument("--max_epochs", type=int, default=1)
    parser.add_argument("--prompt_max_len", type=int, default=8)
    parser.add_argument("--generate_max_len", type=int, default=12)
    parser.add_argument("--actor_learning_rate", type=float, default=1e-4)
    parser.add_argument("--critic_learning_rate", type=float, default=5e-4)
    parser.add_argument("--init_kl_coef", type=float, default=0.02)
    parser.add_argument("--kl_target", type=float, default=0.1)
    parser.add_argument("--kl_horizon", type=int, default=10000)
    parser.add_argument("--kl_estimator", type=str, default="k1")
    parser.add_argument("--ptx_coef", type=float, default=0.05)
    parser.add_argument("--eps_clip", type=float, default=0.2)
    parser.add_argument("--value_clip", type=float, default=0.2)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--lambd", type=float, default=0.95)
    parser.add_argument("--advantage_estimator", type=str, default="gae")
    parser.add_argument("--reward_clip_range", type=float, nargs=2, default=(-10, 10))
    parser.add_argument("--enable_ema", action="store_true", default=True)
    parser.add_argument("--logging_steps", type=int, default=1)
    parser.add_argument("--max_norm", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--max_steps", type=int, default=steps)
    return parser.parse_args([])


def main(steps=30):
    torch.set_num_threads(1)
    args = get_args(steps)
    strategy = get_strategy(args)
    strategy.setup_distributed()

    vocab = 48
    actor = Actor(TinyCausalLM(vocab_size=vocab, hidden_size=32))
    critic = get_llm_for_sequence_regression("critic", vocab_size=vocab, hidden_size=32)
    reward_model = get_llm_for_sequence_regression("reward", vocab_size=vocab, hidden_size=32)
    initial_model = Actor(copy.deepcopy(actor.model))
    for m in (reward_model, initial_model):
        m.requires_grad_(False)
    ema_model = Actor(copy.deepcopy(actor.model)) if args.enable_ema else None
    if ema_model is not None:
        ema_model.requires_grad_(False)

    actor_optim = strategy.create_optimizer(actor, lr=args.actor_learning_rate, betas=(0.9, 0.95), weight_decay=0.0)
    critic_optim = strategy.create_optimizer(critic, lr=args.critic_learning_rate, betas=(0.9, 0.95), weight_decay=0.0)

    prompts_dataset = PromptDataset(num_prompts=64, prompt_len=args.prompt_max_len, vocab_size=vocab)
    g = torch.Generator().manual_seed(args.seed)
    prompts_dataloader = DataLoader(prompts_dataset, batch_size=args.rollout_batch_size, shuffle=True,
                                    drop_last=True, generator=g)
    pretrain_dataset = PretrainDataset(num_samples=16, seq_len=args.prompt_max_len + args.generate_max_len,
                                       vocab_size=vocab)
    pretrain_dataloader = DataLoader(pretrain_dataset, batch_size=args.micro_train_batch_size, shuffle=False,
                                     collate_fn=PretrainDataset.collate_fn)

    max_steps = steps * (args.rollout_batch_size // args.micro_train_batch_size)
    actor_scheduler = get_scheduler(actor_optim, math.ceil(max_steps * 0.03), max_steps)
    critic_scheduler = get_scheduler(critic_optim, math.ceil(max_steps * 0.03), max_steps)

    trainer = PPOTrainer(
        strategy,
        actor,
        critic,
        reward_model,
        initial_model,
        ema_model,
        actor_optim,
        critic_optim,
        actor_scheduler,
        critic_scheduler,
        init_kl_coef=args.init_kl_coef,
        kl_target=args.kl_target,
        kl_horizon=args.kl_horizon,
        ptx_coef=args.ptx_coef,
        micro_train_batch_size=args.micro_train_batch_size,
        eps_clip=args.eps_clip,
        value_clip=args.value_clip,
        micro_rollout_batch_size=args.micro_rollout_batch_size,
        max_epochs=args.max_epochs,
        max_norm=args.max_norm,
        prompt_max_len=args.prompt_max_len,
        # generate kwargs
        max_new_tokens=args.generate_max_len,
        eos_token_id=1,
        pad_token_id=0,
        gamma=args.gamma,
        lambd=args.lambd,
    )
    trainer.fit(args, prompts_dataloader, pretrain_dataloader)
    summary = trainer._tracker.summary()
    return {
        "steps": len(trainer._tracker.history),
        "kl_coef": float(trainer.kl_ctl.value),
        "policy_loss": summary.get("train/policy_loss"),
        "critic_loss": summary.get("train/critic_loss"),
        "ptx_loss": summary.get("train/ptx_loss"),
        "reward": summary.get("train/reward"),
    }


if __name__ == "__main__":
    print(main())
