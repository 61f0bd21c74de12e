# Source: https://github.com/sbi-dev/sbi/issues/198
# Shape: a neural posterior draws candidate parameters through its conditional affine flow (reparameterised, so candidates carry the network's graph) and rejection-samples them against a box prior in a while loop, growing the accepted set with torch.cat; with heavy leakage many rounds run and every round's sampling graph stays attached to the accepted tensor. The fix was a missing .detach().
# Verdict: leak
import torch
import torch.nn as nn

STEPS = 100


class ConditionalAffineFlow(nn.Module):
    def __init__(self, dim_theta=3, dim_x=8, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim_x, hidden), nn.Tanh(), nn.Linear(hidden, 2 * dim_theta))
        self.dim_theta = dim_theta

    def sample(self, n, x):
        shift, log_scale = self.net(x).chunk(2, dim=-1)
        eps = torch.randn(n, self.dim_theta)
        return shift + eps * log_scale.exp()


class BoxPrior:
    def __init__(self, low, high):
        self.low, self.high = low, high

    def support_mask(self, theta):
        return ((theta > self.low) & (theta < self.high)).all(dim=-1)


class Posterior:
    def __init__(self, flow, prior, x_o):
        self.flow, self.prior, self.x_o = flow, prior, x_o

    def sample(self, num_samples, batch=64):
        accepted = torch.empty(0, self.flow.dim_theta)
        rounds = 0
        while accepted.shape[0] < num_samples:
            candidates = self.flow.sample(batch, self.x_o)
            keep = self.prior.support_mask(candidates)
            accepted = torch.cat([accepted, candidates[keep]], dim=0)  # TLK102
            rounds += 1
        return accepted[:num_samples], rounds


flow = ConditionalAffineFlow()
prior = BoxPrior(torch.full((3,), -0.5), torch.full((3,), 0.5))
posterior = Posterior(flow, prior, x_o=torch.randn(1, 8))
theta, rounds = posterior.sample(num_samples=STEPS * 4)
print(theta.shape, rounds)
