# Source: https://github.com/rballester/tntorch/pull/19
# Shape: the fixed tensor-train completion class records every step's loss in self.loss_history with .item(), so the history (also used by the stopping test) holds plain floats and each step's contraction graph dies with its iteration.
# Verdict: clean
import torch
import torch.nn as nn


class TensorTrain:
    def __init__(self, shape, rank=4, init_scale=0.3):
        ranks = [1] + [rank] * (len(shape) - 1) + [1]
        self.cores = [
            nn.Parameter(torch.randn(ranks[i], n, ranks[i + 1]) * init_scale) for i, n in enumerate(shape)
        ]
        self.loss_history = []

    def full(self):
        result = self.cores[0]
        for core in self.cores[1:]:
            result = torch.tensordot(result, core, dims=([result.dim() - 1], [0]))
        return result.squeeze(0).squeeze(-1)

    def fit(self, target, mask, max_iter=500, lr=1e-2, tol=1e-6, verbose=False):
        optimizer = torch.optim.Adam(self.cores, lr=lr)
        for it in range(max_iter):
            optimizer.zero_grad()
            approx = self.full()
            loss = ((approx - target)[mask] ** 2).mean()
            loss.backward()
            optimizer.step()
            self.loss_history.append(loss.item())
            if verbose and it % 100 == 0:
                print("iter %d: loss %.6f" % (it, self.loss_history[-1]))
            if it > 10 and abs(self.loss_history[-2] - self.loss_history[-1]) < tol:
                break
        return self


def complete_image(image, observed_fraction=0.3, rank=4, max_iter=500):
    mask = torch.rand_like(image) < observed_fraction
    tt = TensorTrain(image.shape, rank=rank).fit(image, mask, max_iter=max_iter)
    with torch.no_grad():
        return tt.full(), tt.loss_history
