# Source: https://github.com/yuval-alaluf/SAM/issues/42
# Shape: an age-transformation coach backwards the forward pass's loss, then runs a cycle pass from the detached output and backwards that loss too, before one optimizer step; each backward has its own graph, so neither needs retain_graph, and calc_loss returns its loss dict as floats, which the coach keeps in a history list.
# Verdict: clean
import torch
import torch.nn.functional as F


class Coach:
    def __init__(self, net, aging_loss, lpips, optimizer, loader, max_steps=500_000):
        self.net = net
        self.aging_loss = aging_loss
        self.lpips = lpips
        self.optimizer = optimizer
        self.loader = loader
        self.max_steps = max_steps
        self.global_step = 0
        self.history = []

    def calc_loss(self, y, y_hat, target_ages, data_type="real"):
        loss_l2 = F.mse_loss(y_hat, y)
        loss_lpips = self.lpips(y_hat, y)
        loss_aging = self.aging_loss(y_hat, target_ages)
        loss = loss_l2 + 0.1 * loss_lpips + 5.0 * loss_aging
        loss_dict = {
            f"loss_l2_{data_type}": float(loss_l2),
            f"loss_lpips_{data_type}": float(loss_lpips),
            f"loss_aging_{data_type}": float(loss_aging),
            f"loss_{data_type}": float(loss),
        }
        return loss, loss_dict

    @staticmethod
    def with_age(images, ages):
        return torch.cat([images, ages.view(-1, 1, 1, 1).expand(-1, 1, *images.shape[2:])], dim=1)

    def train(self):
        self.net.train()
        while self.global_step < self.max_steps:
            for x, y, input_ages in self.loader:
                self.optimizer.zero_grad()
                target_ages = torch.rand(x.size(0))
                y_hat = self.net(self.with_age(x, target_ages))
                loss, loss_dict = self.calc_loss(y, y_hat, target_ages, "real")
                loss.backward()

                y_hat_clone = y_hat.clone().detach().requires_grad_(True)
                y_recovered = self.net(self.with_age(y_hat_clone, input_ages))
                cycle_loss, cycle_dict = self.calc_loss(x, y_recovered, input_ages, "cycle")
                cycle_loss.backward()
                self.optimizer.step()

                loss_dict.update(cycle_dict)
                self.history.append(loss_dict)
                self.global_step += 1
                if self.global_step >= self.max_steps:
                    break
