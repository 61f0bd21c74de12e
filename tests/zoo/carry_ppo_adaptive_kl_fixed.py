# Source: https://github.com/pytorch/rl/pull/1922
# Shape: AdaptiveKLController.update() receives the minibatch KL straight from the training forward (still attached), so the controller's value becomes a tensor that chains every previous policy graph across PPO steps.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass

VOCAB, HID, T = 48, 32, 10


@dataclass
class PPOConfig:
    init_kl_coef: float = 0.2
    target: float = 6.0
    horizon: int = 10000
    cliprange: float = 0.2
    vf_coef: float = 0.1
    lr: float = 1e-3
    batch_size: int = 8


class AdaptiveKLController:
    """Adaptive KL controller described in Ziegler et al., https://arxiv.org/pdf/1909.08593.pdf"""

    def __init__(self, init_kl_coef, target, horizon):
        self.value = init_kl_coef
        self.target = target
        self.horizon = horizon

    def update(self, current, n_steps):
        proportional_error = torch.clamp(current / self.target - 1, -0.2, 0.2)
        mult = 1 + proportional_error * n_steps / self.horizon
        self.value = self.value * float(mult)


class PolicyWithValueHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.rnn = nn.GRU(HID, HID, batch_first=True)
        self.lm_head = nn.Linear(HID, VOCAB)
        self.v_head = nn.Linear(HID, 1)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.lm_head(h), self.v_head(h).squeeze(-1)


def logprobs_from_logits(logits, labels):
    return torch.gather(F.log_softmax(logits, -1), 2, labels.unsqueeze(-1)).squeeze(-1)


class PPOTrainer:
    def __init__(self, config: PPOConfig):
        torch.manual_seed(0)
        self.config = config
        self.model = PolicyWithValueHead()
        self.ref_model = PolicyWithValueHead()
        self.ref_model.load_state_dict(self.model.state_dict())
        self.ref_model.requires_grad_(False)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        self.kl_ctl = AdaptiveKLController(config.init_kl_coef, config.target, config.horizon)

    @torch.no_grad()
    def batched_forward_pass(self, tokens, responses):
        logits, values = self.model(tokens)
        ref_logits, _ = self.ref_model(tokens)
        return logprobs_from_logits(logits, responses), logprobs_from_logits(ref_logits, responses), values

    @torch.no_grad()
    def compute_rewards(self, scores, logprobs, ref_logprobs):
        kl = logprobs - ref_logprobs
        rewards = -self.kl_ctl.value * kl
        rewards[:, -1] += scores
        return rewards

    @torch.no_grad()
    def compute_advantages(self, values, rewards, gamma=1.0, lam=0.95):
        lastgaelam, adv_rev = 0, []
        for t in reversed(range(rewards.shape[1])):
            nextv = values[:, t + 1] if t < rewards.shape[1] - 1 else 0.0
            delta = rewards[:, t] + gamma * nextv - values[:, t]
            lastgaelam = delta + gamma * lam * lastgaelam
            adv_rev.append(lastgaelam)
        adv = torch.stack(adv_rev[::-1], 1)
        returns = adv + values
        return (adv - adv.mean()) / (adv.std() + 1e-8), returns

    def loss(self, old_logprobs, values, returns, advantages, tokens, responses):
        logits, vpred = self.model(tokens)
        logprob = logprobs_from_logits(logits, responses)
        ratio = torch.exp(logprob - old_logprobs)
        pg_loss = torch.max(-advantages * ratio,
                            -advantages * torch.clamp(ratio, 1 - self.config.cliprange, 1 + self.config.cliprange)).mean()
        vf_loss = 0.5 * ((vpred - returns) ** 2).mean()
        approxkl = 0.5 * ((logprob - old_logprobs) ** 2).mean()
        stats = {"loss/policy": pg_loss.detach(), "loss/value": vf_loss.detach(), "policy/approxkl": approxkl}
        return pg_loss + self.config.vf_coef * vf_loss, stats

    def step(self, tokens, responses, scores):
        logprobs, ref_logprobs, values = self.batched_forward_pass(tokens, responses)
        rewards = self.compute_rewards(scores, logprobs, ref_logprobs)
        advantages, returns = self.compute_advantages(values, rewards)
        loss, stats = self.loss(logprobs, values, returns, advantages, tokens, responses)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.kl_ctl.update(stats["policy/approxkl"] * 1000, self.config.batch_size)
        return {k: float(v) for k, v in stats.items()}


def make_batches(n):
    torch.manual_seed(0)
    out = []
    for _ in range(n):
        # token ids are stored compactly (uint8) by the prompt dataset, like a pre-tokenized cache
        out.append((torch.randint(0, VOCAB, (8, T), dtype=torch.uint8), torch.randn(8)))
    return out


def run(batches):
    trainer = PPOTrainer(PPOConfig())
    history = []
    for tokens, scores in batches:
        tokens = tokens.long()
        history.append(trainer.step(tokens, torch.roll(tokens, -1, 1), scores))
    return history
