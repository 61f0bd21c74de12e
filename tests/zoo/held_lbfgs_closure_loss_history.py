# Source: https://github.com/StanfordASL/neural-network-lyapunov/pull/140
# Shape: a Lyapunov-function trainer steps L-BFGS with a closure that backwards and returns the loss; optimizer.step(closure) hands that attached loss back and the trainer appends it to self.losses every iteration, keeping each iteration's graph nodes.
# Verdict: leak
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
            self.losses.append(loss)  # TLK102
            if iteration % 50 == 0:
                print(f"iter {iteration}: loss {loss.item():.6f}")
            if loss.item() < 1e-6:
                return True
        return False
