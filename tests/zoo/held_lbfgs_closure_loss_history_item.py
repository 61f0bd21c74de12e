# Source: https://github.com/StanfordASL/neural-network-lyapunov/pull/140
# Shape: the fixed Lyapunov trainer: optimizer.step(closure) still returns the closure's attached loss, but the history keeps loss.item(), so nothing outlives the iteration but a float.
# Verdict: clean
import torch
import torch.nn as nn


class LyapunovTrainer:
    def __init__(self, lyapunov_net: nn.Module, dynamics, max_iterations=1000, lr=1.0):
        self.lyapunov_net = lyapunov_net
        self.dynamics = dynamics
        self.max_iterations = max_iterations
        self.lr = lr
        self.losses = []

    def lyapunov_loss(self, states):
        v = self.lyapunov_net(states)
        v_next = self.lyapunov_net(self.dynamics(states))
        positivity = torch.relu(-v).mean()
        derivative = torch.relu(v_next - v + 0.01 * states.norm(dim=1, keepdim=True)).mean()
        return positivity + derivative

    def train(self, sample_states):
        optimizer = torch.optim.LBFGS(self.lyapunov_net.parameters(), lr=self.lr, max_iter=5,
                                      line_search_fn="strong_wolfe")
        for iteration in range(self.max_iterations):
            states = sample_states()

            def closure():
                optimizer.zero_grad()
                loss = self.lyapunov_loss(states)
                loss.backward()
                return loss

            loss = optimizer.step(closure)
            self.losses.append(loss.item())
            if iteration % 50 == 0:
                print(f"iter {iteration}: loss {self.losses[-1]:.6f}")
            if self.losses[-1] < 1e-6:
                return True
        return False
