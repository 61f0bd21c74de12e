# Source: https://github.com/nimarb/pytorch_influence_functions/issues/6
# Shape: each LiSSA recursion step detaches the new inverse-HVP estimate, so only the current Hessian-vector product graph exists and it is freed before the next step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad

N_IN, N_HIDDEN, N_CLASSES = 32, 128, 10
BATCH = 64


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_IN, N_HIDDEN)
        self.fc2 = nn.Linear(N_HIDDEN, N_HIDDEN)
        self.fc3 = nn.Linear(N_HIDDEN, N_CLASSES)

    def forward(self, x):
        x = torch.tanh(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


class RandomBatchLoader:
    """Stands in for a shuffled DataLoader: every iteration starts at a random batch."""

    def __init__(self, batches, seed=0):
        self.batches = batches
        self.gen = torch.Generator().manual_seed(seed)

    def __iter__(self):
        start = int(torch.randint(len(self.batches), (1,), generator=self.gen))
        return iter(self.batches[start:] + self.batches[:start])


def make_batches(n):
    g = torch.Generator().manual_seed(3)
    proto = torch.randn(N_CLASSES, N_IN, generator=g)
    out = []
    for _ in range(n):
        t = torch.randint(N_CLASSES, (BATCH,), generator=g)
        x = proto[t] + 0.5 * torch.randn(BATCH, N_IN, generator=g)
        out.append((x, t))
    return out


def calc_loss(y, t):
    y = F.log_softmax(y, dim=1)
    return F.nll_loss(y, t, reduction="mean")


def grad_z(z, t, model):
    model.eval()
    loss = calc_loss(model(z), t)
    return list(grad(loss, list(model.parameters()), create_graph=True))


def hvp(y, w, v):
    """Hessian of y w.r.t. w times v (double backward)."""
    first_grads = grad(y, w, create_graph=True)
    return grad(first_grads, w, grad_outputs=v, create_graph=True)


def s_test(z_test, t_test, model, z_loader, damp=0.01, scale=25.0, recursion_depth=100):
    v = grad_z(z_test, t_test, model)
    h_estimate = v.copy()
    for i in range(recursion_depth):
        for x, t in z_loader:
            loss = calc_loss(model(x), t)
            hv = hvp(loss, list(model.parameters()), h_estimate)
            h_estimate = [(_v + (1 - damp) * _h_e - _hv / scale).detach() for _v, _h_e, _hv in zip(v, h_estimate, hv)]
            break
    return h_estimate


def pretrain(model, batches, epochs=1, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        for x, t in batches:
            opt.zero_grad()
            calc_loss(model(x), t).backward()
            opt.step()


def run(steps):
    torch.manual_seed(0)
    model = SmallNet()
    train = make_batches(12)
    pretrain(model, train)
    z_test, t_test = train[0][0][:1], train[0][1][:1]
    estimate = s_test(z_test, t_test, model, RandomBatchLoader(train), recursion_depth=steps)
    return model, estimate


if __name__ == "__main__":
    _, est = run(5)
    print(sum(e.norm().item() for e in est))
