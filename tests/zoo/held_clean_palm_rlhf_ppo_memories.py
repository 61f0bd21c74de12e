# Source: https://github.com/lucidrains/PaLM-rlhf-pytorch/blob/00c118d2d603ab1a583bf46e37ac4dde6f3ec5b2/palm_rlhf_pytorch/ppo.py
# Shape: rollouts go into a deque of Memory tuples only after detach_to_cpu_, the deque is cleared after every learn(), and the actor and critic are separate networks, so the policy backward and the later value backward need no retain_graph and nothing outlives its update.
# Verdict: clean
from collections import deque, namedtuple
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

Memory = namedtuple("Memory", ["sequence", "prompt_mask", "mask", "action_prob", "action_log_prob", "reward", "value"])


@dataclass
class RLHFConfig:
    num_tokens: int = 64
    dim: int = 32
    prompt_len: int = 6
    max_seq_len: int = 18
    num_prompts: int = 16
    update_timesteps: int = 4
    epochs: int = 1
    minibatch_size: int = 4
    eps_clip: float = 0.2
    value_clip: float = 0.4
    beta_s: float = 0.01
    kl_div_loss_weight: float = 0.1
    actor_lr: float = 1e-4
    critic_lr: float = 1e-4


class TinyPaLM(nn.Module):
    def __init__(self, num_tokens, dim):
        super().__init__()
        self.token_emb = nn.Embedding(num_tokens, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x, return_embeddings=False):
        h, _ = self.gru(self.token_emb(x))
        return h if return_embeddings else self.to_logits(h)


class ActorCritic(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.actor_palm = TinyPaLM(cfg.num_tokens, cfg.dim)
        self.critic_palm = TinyPaLM(cfg.num_tokens, cfg.dim)
        self.value_head = nn.Linear(cfg.dim, 1)

    def actor_parameters(self):
        return self.actor_palm.parameters()

    def critic_parameters(self):
        return list(self.critic_palm.parameters()) + list(self.value_head.parameters())

    @torch.no_grad()
    def generate(self, state, max_seq_len, temperature=1.0, generator=None):
        out = state
        for _ in range(max_seq_len - state.shape[-1]):
            logits = self.actor_palm(out)[:, -1] / temperature
            sample = torch.multinomial(logits.softmax(-1), 1, generator=generator)
            out = torch.cat((out, sample), dim=-1)
        action_logits, value = self.forward(out)
        actions = out[:, state.shape[-1]:]
        return actions, out, action_logits, value

    def forward(self, x, mask=None):
        action_logits = self.actor_palm(x)
        critic_embeds = self.critic_palm(x, return_embeddings=True)
        values = self.value_head(critic_embeds.mean(dim=1)).squeeze(-1)
        return action_logits, values


def log_prob(prob, indices):
    return torch.gather(prob.clamp(min=1e-20).log(), -1, indices.unsqueeze(-1)).squeeze(-1)


def shift(t, value=0, shift=1, dim=-2):
    zeros = (0, 0) * (-dim - 1)
    return F.pad(t, (*zeros, shift, -shift), value=value)


def masked_mean(seq, mask, dim=None):
    return (seq * mask).sum() / mask.sum().clamp(min=1) if dim is None else (seq * mask).sum(dim) / mask.sum(dim).clamp(min=1)


def masked_entropy(prob, mask):
    entropies = (prob * prob.clamp(min=1e-20).log()).sum(dim=-1)
    return -masked_mean(entropies, mask)


def masked_kl_div(prob1, prob2, mask):
    kl = (prob1 * (prob1.clamp(min=1e-20).log() - prob2.clamp(min=1e-20).log())).sum(dim=-1)
    return masked_mean(kl, mask)


def clipped_value_loss(values, rewards, old_values, clip):
    value_clipped = old_values + (values - old_values).clamp(-clip, clip)
    value_loss_1 = (value_clipped.flatten() - rewards) ** 2
    value_loss_2 = (values.flatten() - rewards) ** 2
    return torch.mean(torch.max(value_loss_1, value_loss_2))


class RewardModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.palm = TinyPaLM(cfg.num_tokens, cfg.dim)
        self.to_reward = nn.Linear(cfg.dim, 1)

    @torch.no_grad()
    def forward(self, seq, prompt_mask=None, mask=None):
        return self.to_reward(self.palm(seq, return_embeddings=True).mean(dim=1)).squeeze(-1)


class RLHFTrainer:
    def __init__(self, cfg, prompt_token_ids):
        self.cfg = cfg
        self.actor_critic = ActorCritic(cfg)
        self.reward_model = RewardModel(cfg).eval()
        self.prompt_token_ids = prompt_token_ids
        self.actor_optim = torch.optim.Adam(self.actor_critic.actor_parameters(), lr=cfg.actor_lr)
        self.critic_optim = torch.optim.Adam(self.actor_critic.critic_parameters(), lr=cfg.critic_lr)
        self.loss_log = []

    def learn(self, memories):
        cfg = self.cfg
        sequences, prompt_masks, masks, old_action_probs, old_log_probs, rewards, old_values = (
            torch.stack(t) for t in zip(*memories))
        for _ in range(cfg.epochs):
            for start in range(0, len(memories), cfg.minibatch_size):
                sl = slice(start, start + cfg.minibatch_size)
                seq, prompt_mask, mask = sequences[sl], prompt_masks[sl], masks[sl]
                action_masks = ~prompt_mask & mask
                action_logits, values = self.actor_critic(seq, mask=action_masks)
                action_logits = shift(action_logits, shift=1, dim=-2)
                action_len = old_log_probs.shape[-1]
                action_probs = action_logits.softmax(dim=-1)
                action_log_probs = log_prob(action_probs, seq)[:, -action_len:]
                entropies = masked_entropy(action_probs, mask=action_masks)

                kl_penalty = masked_kl_div(old_action_probs[sl], action_probs, mask=action_masks) * cfg.kl_div_loss_weight
                rewards_mb = rewards[sl] - kl_penalty

                ratios = (action_log_probs - old_log_probs[sl]).exp()
                advantages = (rewards_mb - old_values[sl]).unsqueeze(-1)
                surr1 = ratios * advantages
                surr2 = ratios.clamp(1 - cfg.eps_clip, 1 + cfg.eps_clip) * advantages
                policy_loss = -torch.min(surr1, surr2) - cfg.beta_s * entropies
                loss = policy_loss.mean()

                # update actor
                loss.backward()
                self.actor_optim.step()
                self.actor_optim.zero_grad()

                # calculate value loss and update value network separate from policy network
                value_loss = clipped_value_loss(values, rewards_mb.detach(), old_values[sl], cfg.value_clip)
                value_loss.backward()
                self.critic_optim.step()
                self.critic_optim.zero_grad()
                self.loss_log.append((loss.item(), value_loss.item()))

    def train(self, episodes, max_timesteps=1):
        time = 0
        memories = deque([])
        for eps in episodes:
            g = torch.Generator().manual_seed(eps)
            for _ in range(max_timesteps):
                time += 1
                idx = int(torch.randint(0, self.cfg.num_prompts, (1,), generator=g))
                state = self.prompt_token_ids[idx]
                actions, sequence, action_logits, value = self.actor_critic.generate(
                    state.unsqueeze(0), max_seq_len=self.cfg.max_seq_len, generator=g)
                action_logits = shift(action_logits, shift=1, dim=-2)
                action_prob = action_logits.softmax(dim=-1)
                action_len = actions.shape[-1]
                action_log_prob = log_prob(action_prob, sequence)[:, -action_len:]
                prompt_mask = torch.arange(sequence.shape[-1]) < state.shape[-1]
                mask = torch.ones(sequence.shape[-1], dtype=torch.bool)
                reward = self.reward_model(sequence)

                detach_to_cpu_ = lambda t: t.detach().cpu().squeeze(0)
                memories.append(Memory(*map(detach_to_cpu_, (
                    sequence, prompt_mask.unsqueeze(0), mask.unsqueeze(0), action_prob, action_log_prob, reward, value))))

                if time % self.cfg.update_timesteps == 0:
                    self.learn(memories)
                    memories.clear()
        return self.loss_log


def make_batches(n):
    return list(range(n))


def run(batches):
    torch.manual_seed(0)
    cfg = RLHFConfig()
    prompts = torch.randint(0, cfg.num_tokens, (cfg.num_prompts, cfg.prompt_len))
    trainer = RLHFTrainer(cfg, prompts)
    return trainer.train(batches)


if __name__ == "__main__":
    print(run(make_batches(8)))
