"""Modelled on CarperAI/trlx: a sentiment-style PPO example in the shape of trlx's examples/ppo_sentiments.py + default_ppo_config(),
scaled down to a tiny randomly initialised char-level GPT on CPU.

main(steps): `steps` = trainer optimizer steps (config.train.total_steps).
"""
import torch

import trlx
from trlx.data.configs import ModelConfig, OptimizerConfig, SchedulerConfig, TokenizerConfig, TrainConfig, TRLConfig
from trlx.models.modeling_ppo import PPOConfig
from trlx.models.tiny_gpt import TinyGPTConfig

PROMPTS = [
    "this movie was", "the plot is", "i think the acting", "what a", "the ending felt",
    "honestly the film", "my review.", "the soundtrack is", "overall it was", "the director",
    "i left the cinema", "the cast", "a story about", "this sequel", "the first hour", "critics said",
]


def default_ppo_config(total_steps: int) -> TRLConfig:
    return TRLConfig(
        train=TrainConfig(
            seq_length=32,
            epochs=10000,
            total_steps=total_steps,
            batch_size=8,
            checkpoint_interval=10000,
            eval_interval=10000,
            pipeline="PromptPipeline",
            trainer="AcceleratePPOTrainer",
            tracker="memory",
        ),
        model=ModelConfig(model_path=TinyGPTConfig(vocab_size=33, n_positions=64, n_embd=32, n_layer=2, n_head=2,
                                                   hidden_size=32), num_layers_unfrozen=-1),
        tokenizer=TokenizerConfig(tokenizer_path="char", truncation_side="right"),
        optimizer=OptimizerConfig(name="adamw", kwargs=dict(lr=3e-4, betas=(0.9, 0.95), eps=1.0e-8, weight_decay=1.0e-6)),
        scheduler=SchedulerConfig(name="cosine_annealing", kwargs=dict(T_max=1e12, eta_min=3e-4)),
        method=PPOConfig(
            name="PPOConfig",
            num_rollouts=16,
            chunk_size=8,
            ppo_epochs=2,
            init_kl_coef=0.05,
            target=6,
            horizon=10000,
            gamma=1,
            lam=0.95,
            cliprange=0.2,
            cliprange_value=0.2,
            vf_coef=1,
            scale_reward="running",
            ref_mean=None,
            ref_std=None,
            cliprange_reward=10,
            gen_kwargs=dict(max_new_tokens=12, top_k=0, do_sample=True),
        ),
    )


def reward_fn(samples, prompts, outputs, **kwargs):
    """'Positive sentiment' stand-in: reward vowels, penalise '!' (one score per sample, at EOS)."""
    return [[sum(c in "aeiou" for c in o) / 4.0 - o.count("!")] for o in outputs]


def metric_fn(samples, prompts, outputs, **kwargs):
    return {"length": [float(len(o)) for o in outputs]}


def main(steps: int) -> dict:
    torch.set_num_threads(1)  # tiny CPU run
    config = default_ppo_config(total_steps=steps)
    trainer = trlx.train(reward_fn=reward_fn, metric_fn=metric_fn, prompts=PROMPTS, eval_prompts=PROMPTS[:8],
                         config=config)
    summary = trainer.accelerator.get_tracker("memory").summary()
    return {
        "iter_count": trainer.iter_count,
        "train_loss": trainer.train_loss,
        "reward/mean": summary.get("reward/mean"),
        "kl_ctl_value": trainer.kl_ctl.value,
    }


if __name__ == "__main__":
    import time
    t = time.time()
    print(main(30), f"{time.time() - t:.2f}s")
