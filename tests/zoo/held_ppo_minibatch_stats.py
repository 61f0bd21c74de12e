# Source: https://github.com/huggingface/trl/pull/220
# Shape: train_minibatch() returns a stats dict whose entries (total loss, approxkl) are still attached, and step() keeps them in self.all_stats for the epoch-level record_step_stats, so every minibatch graph stays alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HID, T = 40, 32, 10


class ValueHeadLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.lm_head = nn.Linear(HID, VOCAB)
        self.v_head = nn.Linear(HID, 1)

    def forward(self, ids):
        x = self.embed(ids)
        h = x.new_zeros(x.shape[0], HID)
        hs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
            hs.append(h)
        hs = torch.stack(hs, 1)
        return self.lm_head(hs), self.v_head(hs).squeeze(-1)


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum()


def flatten_dict(nested, sep="/"):
    out = {}
    for k, v in nested.items():
        if isinstance(v, dict):
            for kk, vv in flatten_dict(v, sep).items():
                out[f"{k}{sep}{kk}"] = vv
        else:
            out[k] = v
    return out


class PPOTrainer:
    def __init__(self, cliprange=0.2, cliprange_value=0.2, vf_coef=0.1):
        torch.manual_seed(0)
        self.model = ValueHeadLM()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.cliprange, self.cliprange_value, self.vf_coef = cliprange, cliprange_value, vf_coef
        self.all_stats = []

    def loss(self, old_logprobs, values, rewards, logits, vpreds, logprobs, mask):
        advantages = rewards - values
        returns = advantages + values
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        vpredclipped = torch.clamp(vpreds, values - self.cliprange_value, values + self.cliprange_value)
        vf_loss = 0.5 * masked_mean(torch.max((vpreds - returns) ** 2, (vpredclipped - returns) ** 2), mask)
        ratio = torch.exp(logprobs - old_logprobs)
        pg_loss = masked_mean(torch.max(-advantages * ratio,
                                        -advantages * torch.clamp(ratio, 1 - self.cliprange, 1 + self.cliprange)), mask)
        loss = pg_loss + self.vf_coef * vf_loss
        approxkl = 0.5 * masked_mean((logprobs - old_logprobs) ** 2, mask)
        stats = dict(
            loss=dict(total=loss),
            policy=dict(approxkl=approxkl),
        )
        return pg_loss, self.vf_coef * vf_loss, flatten_dict(stats)

    def train_minibatch(self, old_logprobs, values, rewards, ids, mask):
        logits, vpreds = self.model(ids)
        logprobs = torch.gather(F.log_softmax(logits, -1), 2, torch.roll(ids, -1, 1).unsqueeze(-1)).squeeze(-1)
        loss_p, loss_v, train_stats = self.loss(old_logprobs, values, rewards, logits, vpreds, logprobs, mask)
        loss = loss_p + loss_v
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return train_stats

    def record_step_stats(self):
        keys = self.all_stats[0].keys()
        return {k: torch.stack([s[k] for s in self.all_stats]).mean().item() for k in keys}

    def step(self, ids, scores):
        with torch.no_grad():
            logits, values = self.model(ids)
            old_logprobs = torch.gather(F.log_softmax(logits, -1), 2, torch.roll(ids, -1, 1).unsqueeze(-1)).squeeze(-1)
        rewards = torch.zeros_like(values)
        rewards[:, -1] = scores
        mask = torch.ones_like(values)
        train_stats = self.train_minibatch(old_logprobs, values, rewards, ids, mask)
        self.all_stats.append(train_stats)  # TLK102
        return self.record_step_stats()


def make_batches(n):
    torch.manual_seed(0)
    return [(torch.randint(0, VOCAB, (4, T), dtype=torch.uint8), torch.randn(4)) for _ in range(n)]


def run(batches):
    trainer = PPOTrainer()
    for ids, scores in batches:
        stats = trainer.step(ids.long(), scores)
    return stats
