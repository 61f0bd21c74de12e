# Source: https://github.com/sungyubkim/MINE-Mutual-Information-Neural-Estimation-/blob/master/MINE.ipynb
# Shape: learn_mine updates the bias-correction moving average ma_et from the graph-attached mean(et) and returns it to the loop, which feeds it into the next call; the loss only uses it detached, so nothing errors while ma_et chains every step's statistics-network graph.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Mine(nn.Module):
    def __init__(self, input_size=2, hidden_size=100):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)
        self.fc3 = nn.Linear(hidden_size, 1)
        nn.init.normal_(self.fc1.weight, std=0.02)
        nn.init.constant_(self.fc1.bias, 0)
        nn.init.normal_(self.fc2.weight, std=0.02)
        nn.init.constant_(self.fc2.bias, 0)
        nn.init.normal_(self.fc3.weight, std=0.02)
        nn.init.constant_(self.fc3.bias, 0)

    def forward(self, input):
        output = F.elu(self.fc1(input))
        output = F.elu(self.fc2(output))
        return self.fc3(output)


def mutual_information(joint, marginal, mine_net):
    t = mine_net(joint)
    et = torch.exp(mine_net(marginal))
    mi_lb = torch.mean(t) - torch.log(torch.mean(et))
    return mi_lb, t, et


def learn_mine(batch, mine_net, mine_net_optim, ma_et, ma_rate=0.01):
    # batch is a tuple of (joint, marginal)
    joint, marginal = batch
    mi_lb, t, et = mutual_information(joint, marginal, mine_net)
    ma_et = (1 - ma_rate) * ma_et + ma_rate * torch.mean(et)  # TLK103

    # unbiasing use moving average
    loss = -(torch.mean(t) - (1 / ma_et.mean()).detach() * torch.mean(et))
    # use biased estimator
    # loss = - mi_lb

    mine_net_optim.zero_grad()
    autograd.backward(loss)
    mine_net_optim.step()
    return mi_lb, ma_et


def train(batches, mine_net, mine_net_optim, probe=None):
    result = list()
    ma_et = 1.
    for i, batch in enumerate(batches):
        mi_lb, ma_et = learn_mine(batch, mine_net, mine_net_optim, ma_et)
        result.append(mi_lb.item())
        if probe is not None:
            probe(i)
    return result


def sample_batch(data, g, batch_size=100, sample_mode="joint"):
    if sample_mode == "joint":
        index = torch.randperm(data.shape[0], generator=g)[:batch_size]
        return data[index]
    joint_index = torch.randperm(data.shape[0], generator=g)[:batch_size]
    marginal_index = torch.randperm(data.shape[0], generator=g)[:batch_size]
    return torch.stack([data[joint_index][:, 0], data[marginal_index][:, 1]], dim=1)


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    cov = torch.tensor([[1.0, 0.8], [0.8, 1.0]])
    data = torch.randn(300, 2, generator=g) @ torch.linalg.cholesky(cov).T
    return [(sample_batch(data, g), sample_batch(data, g, sample_mode="marginal")) for _ in range(n)]


def run(batches, probe=None):
    torch.manual_seed(0)
    mine_net = Mine()
    mine_net_optim = torch.optim.Adam(mine_net.parameters(), lr=1e-3)
    result = train(batches, mine_net, mine_net_optim, probe=probe)
    return {"first_mi_lb": result[0], "last_mi_lb": result[-1]}


if __name__ == "__main__":
    print(run(make_batches(5)))
