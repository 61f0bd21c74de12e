# Source: https://github.com/pytorch/rl/blob/main/torchrl/objectives/ppo.py
# Shape: KL-penalty PPO whose beta buffer is adapted in place through .data from kl.mean() comparisons, and only kl.detach() is returned for logging, so nothing attached outlives a step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HID, T = 40, 32, 10


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.rnn = nn.GRU(HID, HID, batch_first=True)
        self.head = nn.Linear(HID, VOCAB)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


class KLPENPPOLoss(nn.Module):
    def __init__(self, actor, dtarg=0.01, increment=2.0, decrement=0.5, beta=1.0):
        super().__init__()
        self.actor = actor
        self.dtarg, self.increment, self.decrement = dtarg, increment, decrement
        self.register_buffer("beta", torch.tensor(beta))

    def forward(self, td):
        logits = self.actor(td["ids"])
        cur = F.log_softmax(logits, -1)
        log_prob = cur.gather(-1, td["action"].unsqueeze(-1)).squeeze(-1)
        log_weight = log_prob - td["sample_log_prob"]
        neg_loss = log_weight.exp() * td["advantage"]
        kl = (td["old_probs"] * (torch.log(td["old_probs"] + 1e-8) - cur)).sum(-1)
        neg_loss = neg_loss - self.beta * kl
        if kl.mean() > self.dtarg * 1.5:
            self.beta.data *= self.increment
        elif kl.mean() < self.dtarg / 1.5:
            self.beta.data *= self.decrement
        return {"loss_objective": -neg_loss.mean(), "kl": kl.detach().mean()}


@torch.no_grad()
def collect(actor, ids):
    logits = actor(ids)
    action = torch.roll(ids, -1, 1)
    logp = F.log_softmax(logits, -1).gather(-1, action.unsqueeze(-1)).squeeze(-1)
    adv = torch.randn_like(logp)
    return {"ids": ids, "action": action, "sample_log_prob": logp, "old_probs": F.softmax(logits, -1),
            "advantage": (adv - adv.mean()) / (adv.std() + 1e-6)}


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, VOCAB, (4, T), dtype=torch.uint8) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    actor = Actor()
    loss_module = KLPENPPOLoss(actor)
    optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
    logs = {"kl": 0.0, "beta": 0.0}
    for ids in batches:
        td = collect(actor, ids.long())
        out = loss_module(td)
        optim.zero_grad()
        out["loss_objective"].backward()
        optim.step()
        logs["kl"] = out["kl"].item()
        logs["beta"] = loss_module.beta.item()
    return logs
