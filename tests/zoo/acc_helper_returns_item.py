# Source: https://github.com/Quantinuum/lambeq/pull/251
# Shape: a training_step helper does the backward and returns loss.item(); the epoch loop sums what it returns, which is a float.
# Verdict: clean
import torch


class PytorchTrainer:
    def __init__(self, model, loss_function, optimizer, device="cpu"):
        self.model = model
        self.loss_function = loss_function
        self.optimizer = optimizer
        self.device = device
        self.train_costs = []

    def training_step(self, batch):
        x, y = batch
        y_hat = self.model(x)
        loss = self.loss_function(y_hat, y.to(self.device))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return y_hat.detach(), loss.item()

    def fit(self, train_loader, epochs):
        for epoch in range(epochs):
            epoch_cost = 0.0
            for batch in train_loader:
                _, cost = self.training_step(batch)
                epoch_cost += cost
                self.train_costs.append(cost)
            print(epoch, epoch_cost / len(train_loader))
