# Source: https://github.com/eric-mitchell/direct-preference-optimization/blob/5815fab23a10509b7ee7088be27f8979bd26c96a/trainers.py
# Shape: get_batch_metrics returns chosen/rejected rewards that dpo_loss already built from .detach()ed log-prob differences, plus detached log-probs and losses turned into Python lists; batch_metrics is rebuilt for every batch and each microbatch loss is backwarded right away, so no graph outlives its step.
# Verdict: clean
import time
from collections import defaultdict
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, reference_chosen_logps, reference_rejected_logps,
             beta, reference_free=False):
    pi_logratios = policy_chosen_logps - policy_rejected_logps
    ref_logratios = reference_chosen_logps - reference_rejected_logps
    if reference_free:
        ref_logratios = 0
    logits = pi_logratios - ref_logratios
    losses = -F.logsigmoid(beta * logits)
    chosen_rewards = beta * (policy_chosen_logps - reference_chosen_logps).detach()
    rejected_rewards = beta * (policy_rejected_logps - reference_rejected_logps).detach()
    return losses, chosen_rewards, rejected_rewards


def _get_batch_logps(logits, labels, average_log_prob=False):
    assert logits.shape[:-1] == labels.shape
    labels = labels[:, 1:].clone()
    logits = logits[:, :-1, :]
    loss_mask = labels != -100
    labels[labels == -100] = 0
    per_token_logps = torch.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
    if average_log_prob:
        return (per_token_logps * loss_mask).sum(-1) / loss_mask.sum(-1)
    return (per_token_logps * loss_mask).sum(-1)


def concatenated_inputs(batch):
    return {
        "concatenated_input_ids": torch.cat([batch["chosen_input_ids"], batch["rejected_input_ids"]], dim=0),
        "concatenated_labels": torch.cat([batch["chosen_labels"], batch["rejected_labels"]], dim=0),
    }


def all_gather_if_needed(values, rank, world_size):
    return values if world_size == 1 else torch.cat([values] * world_size)


class TinyPolicy(nn.Module):
    def __init__(self, vocab_size=96, hidden=40):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, attention_mask=None):
        h, _ = self.rnn(self.embed(input_ids))
        return SimpleNamespace(logits=self.lm_head(h))


class WandbStub:
    def __init__(self):
        self.last = None

    def log(self, metrics, step=None):
        self.last = (step, dict(metrics))


class BasicTrainer:
    def __init__(self, policy, reference_model, config, train_iterator):
        self.policy = policy
        self.reference_model = reference_model
        self.config = config
        self.train_iterator = train_iterator
        self.rank, self.world_size = 0, 1
        self.wandb = WandbStub()

    def concatenated_forward(self, model, batch):
        concatenated_batch = concatenated_inputs(batch)
        all_logits = model(concatenated_batch["concatenated_input_ids"]).logits.to(torch.float32)
        all_logps = _get_batch_logps(all_logits, concatenated_batch["concatenated_labels"], average_log_prob=False)
        n = batch["chosen_input_ids"].shape[0]
        return all_logps[:n], all_logps[n:]

    def get_batch_metrics(self, batch, loss_config, train=True):
        metrics = {}
        train_test = "train" if train else "eval"
        policy_chosen_logps, policy_rejected_logps = self.concatenated_forward(self.policy, batch)
        with torch.no_grad():
            reference_chosen_logps, reference_rejected_logps = self.concatenated_forward(self.reference_model, batch)
        losses, chosen_rewards, rejected_rewards = dpo_loss(
            policy_chosen_logps, policy_rejected_logps, reference_chosen_logps, reference_rejected_logps,
            beta=loss_config.beta, reference_free=loss_config.reference_free)
        reward_accuracies = (chosen_rewards > rejected_rewards).float()

        chosen_rewards = all_gather_if_needed(chosen_rewards, self.rank, self.world_size)
        rejected_rewards = all_gather_if_needed(rejected_rewards, self.rank, self.world_size)
        reward_accuracies = all_gather_if_needed(reward_accuracies, self.rank, self.world_size)

        metrics[f"rewards_{train_test}/chosen"] = chosen_rewards.cpu().tolist()
        metrics[f"rewards_{train_test}/rejected"] = rejected_rewards.cpu().tolist()
        metrics[f"rewards_{train_test}/accuracies"] = reward_accuracies.cpu().tolist()
        metrics[f"rewards_{train_test}/margins"] = (chosen_rewards - rejected_rewards).cpu().tolist()

        policy_rejected_logps = all_gather_if_needed(policy_rejected_logps.detach(), self.rank, self.world_size)
        metrics[f"logps_{train_test}/rejected"] = policy_rejected_logps.cpu().tolist()
        policy_chosen_logps = all_gather_if_needed(policy_chosen_logps.detach(), self.rank, self.world_size)
        metrics[f"logps_{train_test}/chosen"] = policy_chosen_logps.cpu().tolist()

        all_devices_losses = all_gather_if_needed(losses.detach(), self.rank, self.world_size)
        metrics[f"loss/{train_test}"] = all_devices_losses.cpu().tolist()
        return losses.mean(), metrics

    def clip_gradient(self):
        return torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.config.max_grad_norm).item()

    def train(self):
        self.optimizer = torch.optim.RMSprop(self.policy.parameters(), lr=self.config.lr)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda=lambda step: min(1.0, (step + 1) / (self.config.warmup_steps + 1)))
        self.reference_model.eval()
        self.example_counter = 0
        self.batch_counter = 0
        last_log = None
        for batch in self.train_iterator:
            self.policy.train()
            start_time = time.time()
            batch_metrics = defaultdict(list)
            for microbatch_idx in range(self.config.gradient_accumulation_steps):
                mb = {k: v.chunk(self.config.gradient_accumulation_steps)[microbatch_idx] for k, v in batch.items()}
                loss, metrics = self.get_batch_metrics(mb, self.config.loss, train=True)
                (loss / self.config.gradient_accumulation_steps).backward()
                for k, v in metrics.items():
                    batch_metrics[k].extend(v)

            grad_norm = self.clip_gradient()
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()

            step_time = time.time() - start_time
            batch_metrics["examples_per_second"].append(self.config.batch_size / max(step_time, 1e-6))
            batch_metrics["grad_norm"].append(grad_norm)
            self.batch_counter += 1
            self.example_counter += self.config.batch_size

            if last_log is None or time.time() - last_log > self.config.minimum_log_interval_secs:
                mean_train_metrics = {k: sum(v) / len(v) for k, v in batch_metrics.items()}
                mean_train_metrics["counters/examples"] = self.example_counter
                self.wandb.log(mean_train_metrics, step=self.example_counter)
                last_log = time.time()
        return self.wandb.last


def preference_iterator(seeds, batch_size=8, prompt_len=6, resp_len=14, vocab_size=96):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        prompt = torch.randint(1, vocab_size, (batch_size, prompt_len), generator=g)
        chosen = torch.cat([prompt, torch.randint(1, vocab_size, (batch_size, resp_len), generator=g)], dim=1)
        rejected = torch.cat([prompt, torch.randint(1, vocab_size, (batch_size, resp_len), generator=g)], dim=1)
        chosen_labels, rejected_labels = chosen.clone(), rejected.clone()
        chosen_labels[:, :prompt_len] = -100
        rejected_labels[:, :prompt_len] = -100
        yield {"chosen_input_ids": chosen, "chosen_labels": chosen_labels,
               "rejected_input_ids": rejected, "rejected_labels": rejected_labels}


def make_batches(n):
    return list(range(n))


def run(batches):
    torch.manual_seed(0)
    config = SimpleNamespace(lr=5e-5, warmup_steps=5, batch_size=8, gradient_accumulation_steps=2, max_grad_norm=10.0,
                             minimum_log_interval_secs=0.0,
                             loss=SimpleNamespace(name="dpo", beta=0.1, reference_free=False))
    policy = TinyPolicy()
    reference_model = TinyPolicy()
    reference_model.load_state_dict(policy.state_dict())
    trainer = BasicTrainer(policy, reference_model, config, preference_iterator(batches))
    return trainer.train()


if __name__ == "__main__":
    print(run(make_batches(3)))
