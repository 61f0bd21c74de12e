# Source: https://github.com/kach/gradient-descent-the-ultimate-optimizer/pull/1
# Shape: learning-rate sweep that trains one small model per setting with a gradient-norm penalty built by loss.backward(create_graph=True); zero_grad() at the top of each step breaks the parameter/gradient cycle of the previous step, but after the last step of a run nothing resets the grads, so every finished run leaves its model, gradients and last graph alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_mlp(num_inp=784, num_hid=128, num_out=10):
    return nn.Sequential(nn.Flatten(), nn.Linear(num_inp, num_hid), nn.Tanh(), nn.Linear(num_hid, num_out))


def train_run(mlp, loader, lr, penalty=0.01, epochs=1):
    opt = torch.optim.SGD(mlp.parameters(), lr=lr)
    for _ in range(epochs):
        for features, labels in loader:
            opt.zero_grad()
            task_loss = F.cross_entropy(mlp(features), labels)
            task_loss.backward(create_graph=True)  # TLK302
            grad_norm = sum(p.grad.pow(2).sum() for p in mlp.parameters())
            (penalty * grad_norm).backward()
            opt.step()
    return task_loss.item()


@torch.no_grad()
def accuracy(mlp, loader):
    hits = total = 0
    for features, labels in loader:
        hits += (mlp(features).argmax(1) == labels).sum().item()
        total += labels.numel()
    return hits / total


def sweep(train_loader, test_loader, learning_rates=(0.3, 0.1, 0.03, 0.01)):
    results = {}
    for lr in learning_rates:
        mlp = make_mlp()
        final_loss = train_run(mlp, train_loader, lr)
        results[lr] = (final_loss, accuracy(mlp, test_loader))
        print(f"lr={lr}: loss {final_loss:.3f} acc {results[lr][1]:.3f}")
    return results
