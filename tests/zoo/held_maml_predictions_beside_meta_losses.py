# Source: https://github.com/oscarknagg/few-shot/blob/8151d7862d24726badd5e8541bf6ffb003404c47/few_shot/maml.py
# Shape: a meta-learning step keeps every task's query loss in a list for the meta-loss backwarded after the task loop, and keeps the softmax of the same logits beside it for accuracy; the predictions hold the graphs the losses already keep for that backward, and both lists die with the call
# Verdict: clean
import torch
import torch.nn.functional as F
from torch import nn


def meta_step(model, meta_optimizer, task_batch):
    query_losses = []
    query_probabilities = []
    for query_x, query_y in task_batch:
        logits = model(query_x)
        loss = F.cross_entropy(logits, query_y)
        query_probabilities.append(logits.softmax(dim=1))
        query_losses.append(loss)
    meta_optimizer.zero_grad()
    meta_loss = torch.stack(query_losses).mean()
    meta_loss.backward()
    meta_optimizer.step()
    return meta_loss.item(), torch.cat(query_probabilities).detach()


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    tasks = [(torch.randn(15, 16), torch.randint(0, 5, (15,))) for _ in range(4)]
    for _ in range(3):
        loss, probabilities = meta_step(net, optimizer, tasks)
