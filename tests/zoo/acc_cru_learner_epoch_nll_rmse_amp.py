# Source: https://github.com/boschresearch/Continuous-Recurrent-Units/pull/4
# Shape: a recurrent-unit learner trains under autocast with a GradScaler; a helper method returns the Gaussian negative log-likelihood and the RMSE of the model's prediction, and the epoch loop adds both tensors to its epoch totals without .item(), so the totals keep every batch's graph until the epoch returns (the system hung on high memory in the report).
# Verdict: leak
import torch
import torch.nn as nn


class Learner:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.scaler = torch.cuda.amp.GradScaler()

    def _losses(self, obs, truth, obs_valid):
        mean, var = self.model(obs, obs_valid)
        nll = 0.5 * (torch.log(var) + (truth - mean) ** 2 / var).mean()
        rmse = torch.sqrt(((truth - mean) ** 2).mean())
        return nll, rmse

    def train_epoch(self, loader):
        self.model.train()
        epoch_ll = 0
        epoch_rmse = 0
        for obs, truth, obs_valid in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss, rmse = self._losses(obs, truth, obs_valid)
            self.scaler.scale(loss).backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            epoch_ll += loss  # TLK101
            epoch_rmse += rmse  # TLK101
        return epoch_ll / len(loader), epoch_rmse / len(loader)

    def train(self, loader, epochs):
        for epoch in range(epochs):
            ll, rmse = self.train_epoch(loader)
            print(f"epoch {epoch}: nll {float(ll):.4f} rmse {float(rmse):.4f}")
