# Source: https://github.com/RaoFoundation/bittensor/pull/557
# Shape: a validator trains a small router that weighs its peers and keeps an exponential moving average of each peer's routing weight on itself; the step method blends the attached router weights into ema_scores by index after the backward, so ema_scores carries every step's graph forward (fixed upstream by keeping ema_scores out of autograd).
# Verdict: leak
import torch
import torch.nn as nn


class Router(nn.Module):
    def __init__(self, dim, n_peers):
        super().__init__()
        self.gate = nn.Linear(dim, n_peers)

    def forward(self, x):
        return torch.softmax(self.gate(x).mean(0), dim=-1)


class Validator:
    def __init__(self, router, n_peers, alpha=0.05, lr=1e-3):
        self.router = router
        self.optimizer = torch.optim.Adam(router.parameters(), lr=lr)
        self.ema_scores = torch.zeros(n_peers)
        self.alpha = alpha

    def step(self, inputs, peer_losses, uids):
        weights = self.router(inputs)
        loss = (weights[uids] * peer_losses).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.ema_scores[uids] = (1 - self.alpha) * self.ema_scores[uids] + self.alpha * weights[uids]  # TLK103
        return loss.item()

    def run(self, batches):
        history = []
        for inputs, peer_losses, uids in batches:
            history.append(self.step(inputs, peer_losses, uids))
        return history
