# Source: https://github.com/choderalab/pinot/issues/23
# Shape: the same hyperparameter sweep, but TrainAndTest.test() is decorated with @torch.no_grad() and run() returns the last training loss as train_loss.detach(); the sweep still appends (param_dict, result) tuples whose dict holds tensors, yet none of them carries a graph, so finished experiments are freed apart from two scalars each.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Regressor(nn.Module):
    def __init__(self, in_features, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def loss(self, x, y):
        return F.mse_loss(self(x), y)


class TrainAndTest:
    def __init__(self, net, data_tr, data_te, optimizer, n_epochs=2):
        self.net = net
        self.data_tr = data_tr
        self.data_te = data_te
        self.optimizer = optimizer
        self.n_epochs = n_epochs

    def train(self):
        loss = None
        for epoch in range(self.n_epochs):
            for x, y in self.data_tr:
                self.optimizer.zero_grad()
                loss = self.net.loss(x, y)
                loss.backward()
                self.optimizer.step()
        return loss

    @torch.no_grad()
    def test(self):
        x, y = self.data_te
        return torch.sqrt(F.mse_loss(self.net(x), y))

    def run(self):
        train_loss = self.train()
        return {"train_loss": train_loss.detach(), "rmse": self.test()}


class MultipleTrainAndTest:
    def __init__(self, experiment_generating_fn, param_dicts):
        self.experiment_generating_fn = experiment_generating_fn
        self.param_dicts = param_dicts

    def run(self):
        results = []
        for param_dict in self.param_dicts:
            train_and_test = self.experiment_generating_fn(param_dict)
            result = train_and_test.run()
            results.append((param_dict, result))
        return results


def make_experiment(param_dict, data_tr, data_te):
    net = Regressor(32, param_dict["hidden"])
    optimizer = torch.optim.Adam(net.parameters(), lr=param_dict["lr"])
    return TrainAndTest(net, data_tr, data_te, optimizer)


if __name__ == "__main__":
    torch.manual_seed(0)
    w = torch.randn(32)
    xs = [torch.randn(64, 32) for _ in range(4)]
    data_tr = [(x, x @ w) for x in xs]
    x_te = torch.randn(4096, 32)
    data_te = (x_te, x_te @ w)
    param_dicts = [{"hidden": h, "lr": lr} for h in (128, 256) for lr in (1e-3, 3e-3, 1e-2, 3e-2)] * 2
    sweep = MultipleTrainAndTest(lambda d: make_experiment(d, data_tr, data_te), param_dicts)
    for params, result in sweep.run():
        print(params, float(result["rmse"]))
