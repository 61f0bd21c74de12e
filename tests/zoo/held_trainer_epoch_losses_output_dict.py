# Source: https://github.com/pnnl/neuromancer/pull/292
# Shape: a Trainer's train method backwards the objective it reads from the problem's output dict, then keeps that same attached tensor in a per-epoch list to average it at the end of the epoch; every batch's graph stays reachable until the epoch is over.
# Verdict: leak
import copy

import torch


class Trainer:
    def __init__(self, problem, train_data, dev_data, optimizer, epochs=1000,
                 train_metric="train_loss", dev_metric="dev_loss"):
        self.problem = problem
        self.train_data = train_data
        self.dev_data = dev_data
        self.optimizer = optimizer
        self.epochs = epochs
        self.train_metric = train_metric
        self.dev_metric = dev_metric
        self.best_devloss = float("inf")
        self.best_model = copy.deepcopy(problem.state_dict())

    def train(self):
        for epoch in range(self.epochs):
            losses = []
            self.problem.train()
            for batch in self.train_data:
                output = self.problem(batch)
                self.optimizer.zero_grad()
                output[self.train_metric].backward()
                self.optimizer.step()
                losses.append(output[self.train_metric])  # TLK102
            mean_loss = torch.mean(torch.stack(losses))
            self.problem.eval()
            with torch.no_grad():
                dev_output = self.problem(self.dev_data)
            if dev_output[self.dev_metric] < self.best_devloss:
                self.best_devloss = dev_output[self.dev_metric].item()
                self.best_model = copy.deepcopy(self.problem.state_dict())
            print(f"epoch {epoch}: train {mean_loss.item():.4f} dev {self.best_devloss:.4f}")
        return self.best_model
