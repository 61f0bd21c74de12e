# Source: https://github.com/allenai/open-instruct/pull/363
# Shape: the reward-model loop writes the attached loss and reward margin into preallocated metric buffers (losses[idx] = loss), so the buffers become graph nodes (CopySlices) chaining every micro-batch's graph for the whole run.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass

VOCAB, HID, T = 40, 32, 12


@dataclass
class Args:
    gradient_accumulation_steps: int = 2
    learning_rate: float = 1e-3
    logging_steps: int = 4


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.score = nn.Linear(HID, 1)

    def forward(self, input_ids):
        x = self.embed(input_ids)
        h = x.new_zeros(x.shape[0], HID)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.score(h).squeeze(-1)


class RMMetrics:
    """Fixed-size buffers reduced once per optimizer step (mirrors the upstream local_metrics logic)."""

    def __init__(self, steps):
        self.losses = torch.zeros(steps)
        self.accuracies = torch.zeros(steps)
        self.reward_margin = torch.zeros(steps)
        self.local_metrics = torch.zeros(3)

    def record(self, idx, loss, chosen_reward, rejected_reward):
        self.losses[idx] = loss.detach()
        self.accuracies[idx] = (chosen_reward > rejected_reward).float().mean()
        self.reward_margin[idx] = (chosen_reward - rejected_reward).detach().mean()

    def reduce(self):
        self.local_metrics[0] = self.accuracies.mean()
        self.local_metrics[1] = self.losses.mean()
        self.local_metrics[2] = self.reward_margin.mean()
        return self.local_metrics.tolist()


class RewardTrainer:
    def __init__(self, args, model):
        self.args, self.model = args, model
        self.metrics = RMMetrics(args.gradient_accumulation_steps)

    def train(self, batches):
        return train(self.args, self.model, batches, self.metrics)


def train(args, model, batches, metrics):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    gradient_accumulation_idx, history = 0, []
    for training_step, batch in enumerate(batches, start=1):
        ids = torch.cat([batch["chosen"], batch["rejected"]]).long()
        rewards = model(ids)
        chosen_reward, rejected_reward = rewards.chunk(2)
        loss = -F.logsigmoid(chosen_reward - rejected_reward).mean()
        (loss / args.gradient_accumulation_steps).backward()
        if training_step % args.gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        metrics.record(gradient_accumulation_idx, loss, chosen_reward, rejected_reward)
        gradient_accumulation_idx = (gradient_accumulation_idx + 1) % args.gradient_accumulation_steps
        if training_step % args.logging_steps == 0:
            history.append(metrics.reduce())
    return history


def make_batches(n):
    torch.manual_seed(0)
    return [{"chosen": torch.randint(0, VOCAB, (4, T), dtype=torch.uint8),
             "rejected": torch.randint(0, VOCAB, (4, T), dtype=torch.uint8)} for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    trainer = RewardTrainer(Args(), RewardModel())
    history = trainer.train(batches)
    return trainer, history
