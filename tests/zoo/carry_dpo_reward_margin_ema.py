# Source: https://github.com/eric-mitchell/direct-preference-optimization/issues/8
# Shape: the trainer keeps an exponential moving average of the reward margin in self.running_stats from chosen/rejected rewards that were never detached, so each step's running value points at the previous one and at that step's policy graph, which therefore is never freed.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyPolicy(nn.Module):
    def __init__(self, vocab_size=128, d_model=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.ln = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        h = self.embed(input_ids)
        h = self.ln(h + self.mlp(h))
        return self.lm_head(h)


def _get_batch_logps(logits, labels, loss_mask):
    labels = labels[:, 1:].clone()
    logits = logits[:, :-1, :]
    loss_mask = loss_mask[:, 1:]
    per_token_logps = torch.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
    return (per_token_logps * loss_mask).sum(-1)


def preference_loss(policy_chosen_logps, policy_rejected_logps, reference_chosen_logps, reference_rejected_logps, beta, label_smoothing=0.0):
    pi_logratios = policy_chosen_logps - policy_rejected_logps
    ref_logratios = reference_chosen_logps - reference_rejected_logps
    logits = pi_logratios - ref_logratios
    losses = -F.logsigmoid(beta * logits) * (1 - label_smoothing) - F.logsigmoid(-beta * logits) * label_smoothing
    chosen_rewards = beta * (policy_chosen_logps - reference_chosen_logps)
    rejected_rewards = beta * (policy_rejected_logps - reference_rejected_logps)
    return losses, chosen_rewards, rejected_rewards


class BasicTrainer:
    def __init__(self, policy, reference_model, beta=0.1, lr=5e-4, stats_momentum=0.9):
        self.policy = policy
        self.reference_model = reference_model
        self.beta = beta
        self.optimizer = torch.optim.RMSprop(policy.parameters(), lr=lr)
        self.stats_momentum = stats_momentum
        self.running_stats = {"rewards_train/margins": torch.zeros(()), "rewards_train/accuracies": torch.zeros(())}

    def concatenated_forward(self, model, batch):
        input_ids = torch.cat([batch["chosen_input_ids"], batch["rejected_input_ids"]], dim=0)
        loss_mask = torch.cat([batch["chosen_loss_mask"], batch["rejected_loss_mask"]], dim=0)
        all_logits = model(input_ids).to(torch.float32)
        all_logps = _get_batch_logps(all_logits, input_ids, loss_mask)
        n = batch["chosen_input_ids"].shape[0]
        return all_logps[:n], all_logps[n:]

    def get_batch_metrics(self, batch):
        policy_chosen_logps, policy_rejected_logps = self.concatenated_forward(self.policy, batch)
        with torch.no_grad():
            reference_chosen_logps, reference_rejected_logps = self.concatenated_forward(self.reference_model, batch)
        losses, chosen_rewards, rejected_rewards = preference_loss(
            policy_chosen_logps, policy_rejected_logps, reference_chosen_logps, reference_rejected_logps, beta=self.beta)
        reward_accuracies = (chosen_rewards > rejected_rewards).float()
        return losses.mean(), chosen_rewards, rejected_rewards, reward_accuracies

    def update_running_stats(self, margins, accuracies):
        m = self.stats_momentum
        self.running_stats["rewards_train/margins"] = m * self.running_stats["rewards_train/margins"] + (1 - m) * margins.mean()  # TLK103
        self.running_stats["rewards_train/accuracies"] = m * self.running_stats["rewards_train/accuracies"] + (1 - m) * accuracies.mean()

    def train_step(self, batch):
        self.policy.train()
        loss, chosen_rewards, rejected_rewards, reward_accuracies = self.get_batch_metrics(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 10.0)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.update_running_stats(chosen_rewards - rejected_rewards, reward_accuracies)
        return loss.item()


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        chosen = torch.randint(0, 128, (8, 48), generator=g)
        rejected = torch.randint(0, 128, (8, 48), generator=g)
        mask = torch.ones(8, 48)
        mask[:, :16] = 0.0
        batches.append({"chosen_input_ids": chosen, "rejected_input_ids": rejected, "chosen_loss_mask": mask, "rejected_loss_mask": mask.clone()})
    return batches


def run(batches):
    torch.manual_seed(0)
    policy = TinyPolicy()
    reference_model = TinyPolicy()
    reference_model.load_state_dict(policy.state_dict())
    reference_model.requires_grad_(False)
    trainer = BasicTrainer(policy, reference_model)
    losses = [trainer.train_step(batch) for batch in batches]
    return sum(losses) / len(losses) + float(trainer.running_stats["rewards_train/margins"])


if __name__ == "__main__":
    print(run(make_batches(5)))
