# Source: https://github.com/Quantinuum/lambeq/pull/251
# Shape: a Trainer's predict method is decorated with @torch.no_grad(); it collects model outputs and losses per batch, none of which has a graph.
# Verdict: clean
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model: nn.Module, loss_function):
        self.model = model
        self.loss_function = loss_function
        self.val_costs = []

    @torch.no_grad()
    def predict(self, loader):
        self.model.eval()
        outputs = []
        for x, y in loader:
            y_hat = self.model(x)
            outputs.append(y_hat)
            self.val_costs.append(self.loss_function(y_hat, y))
        return torch.cat(outputs)
