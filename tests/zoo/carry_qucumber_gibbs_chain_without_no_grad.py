# Source: https://github.com/PIQuIL/QuCumber/issues/79
# Shape: an RBM whose weights and biases are nn.Parameters runs k steps of block Gibbs sampling (v -> h -> v) to draw samples for observables, with autograd on; each new visible state is a Bernoulli draw of probabilities computed from the previous state, so the chain feeds its graph back into the next step and memory grows with k. The suggested fix was to run the sampler under torch.no_grad().
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 200


class BinaryRBM(nn.Module):
    def __init__(self, num_visible=64, num_hidden=64):
        super().__init__()
        self.weights = nn.Parameter(0.01 * torch.randn(num_hidden, num_visible))
        self.visible_bias = nn.Parameter(torch.zeros(num_visible))
        self.hidden_bias = nn.Parameter(torch.zeros(num_hidden))

    def prob_h_given_v(self, v):
        return torch.sigmoid(F.linear(v, self.weights, self.hidden_bias))

    def prob_v_given_h(self, h):
        return torch.sigmoid(F.linear(h, self.weights.t(), self.visible_bias))

    def sample_h_given_v(self, v):
        return torch.bernoulli(self.prob_h_given_v(v))

    def sample_v_given_h(self, h):
        return torch.bernoulli(self.prob_v_given_h(h))

    def gibbs_steps(self, k, initial_state):
        v = initial_state
        for _ in range(k):
            h = self.sample_h_given_v(v)
            v = self.sample_v_given_h(h)  # TLK103
        return v


def magnetization(samples):
    return (2 * samples - 1).mean().item()


rbm = BinaryRBM()
v0 = torch.bernoulli(torch.full((256, 64), 0.5))
samples = rbm.gibbs_steps(STEPS, v0)
print("magnetization", magnetization(samples))
