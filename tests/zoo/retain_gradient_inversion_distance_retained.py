# Source: https://github.com/Koukyosyumei/AIJack/issues/133
# Shape: gradient-inversion attack: every iteration differentiates the dummy loss with create_graph=True, measures the distance to the received gradients and backwards it with retain_graph=True although nothing backwards it again; the distance variable keeps the retained double-backward graph into the next iteration.
# Verdict: leak
import torch
import torch.nn as nn


def total_variation(x):
    return (x[:, :, 1:, :] - x[:, :, :-1, :]).abs().mean() + (x[:, :, :, 1:] - x[:, :, :, :-1]).abs().mean()


class GradientInversionAttack:
    def __init__(self, target_model: nn.Module, lossfunc, num_iteration=300, lr=0.1, tv_reg_coef=1e-2, log_interval=50):
        self.target_model = target_model
        self.lossfunc = lossfunc
        self.num_iteration = num_iteration
        self.lr = lr
        self.tv_reg_coef = tv_reg_coef
        self.log_interval = log_interval

    def _gradient_distance(self, fake_gradients, received_gradients):
        return sum(((f - r) ** 2).sum() for f, r in zip(fake_gradients, received_gradients))

    def attack(self, received_gradients, x_shape, num_classes):
        fake_x = torch.randn(x_shape, requires_grad=True)
        fake_label = torch.randn(x_shape[0], num_classes, requires_grad=True)
        optimizer = torch.optim.Adam([fake_x, fake_label], lr=self.lr)
        best_distance, best_x = float("inf"), None
        for i in range(1, self.num_iteration + 1):
            optimizer.zero_grad()
            fake_pred = self.target_model(fake_x)
            fake_loss = self.lossfunc(fake_pred, fake_label.softmax(dim=-1))
            fake_gradients = torch.autograd.grad(fake_loss, self.target_model.parameters(), create_graph=True)
            distance = self._gradient_distance(fake_gradients, received_gradients)
            if self.tv_reg_coef:
                distance = distance + self.tv_reg_coef * total_variation(fake_x)
            distance.backward(retain_graph=True)  # TLK201
            optimizer.step()
            if distance.item() < best_distance:
                best_distance, best_x = distance.item(), fake_x.detach().clone()
            if i % self.log_interval == 0:
                print(f"iter {i}: gradient distance {distance.item():.4f}")
        return best_x, fake_label.detach().argmax(dim=-1)
