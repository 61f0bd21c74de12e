# Source: https://github.com/oscarknagg/few-shot/blob/8151d7862d24726badd5e8541bf6ffb003404c47/few_shot/maml.py
# Shape: MAML inner loop: the fast weights are rebuilt from the model's parameters for every task, updated a few times from torch.autograd.grad taken with respect to them, and the query loss computed from the last ones is backwarded after the task loop (meta-loss); the chain spans one task's inner steps and is what the meta-gradient flows through
# Verdict: clean
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self, features=16, classes=5):
        super().__init__()
        self.fc = nn.Linear(features, classes)

    def functional_forward(self, x, weights):
        return F.linear(x, weights["fc.weight"], weights["fc.bias"])


def meta_train_step(model, meta_optimizer, task_batch, inner_steps=3, inner_lr=0.4, second_order=True):
    query_losses = []
    for support_x, support_y, query_x, query_y in task_batch:
        adapted = OrderedDict(model.named_parameters())
        for _ in range(inner_steps):
            support_loss = F.cross_entropy(model.functional_forward(support_x, adapted), support_y)
            grads = torch.autograd.grad(support_loss, adapted.values(), create_graph=second_order)
            adapted = OrderedDict((name, weight - inner_lr * grad) for (name, weight), grad in zip(adapted.items(), grads))
        query_losses.append(F.cross_entropy(model.functional_forward(query_x, adapted), query_y))
    meta_optimizer.zero_grad()
    meta_loss = torch.stack(query_losses).mean()
    meta_loss.backward()
    meta_optimizer.step()
    return meta_loss.item()


if __name__ == "__main__":
    net = Classifier()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    tasks = [(torch.randn(10, 16), torch.randint(0, 5, (10,)), torch.randn(15, 16), torch.randint(0, 5, (15,))) for _ in range(4)]
    for _ in range(3):
        meta_train_step(net, optimizer, tasks)
