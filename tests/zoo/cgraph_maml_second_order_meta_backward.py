# Source: https://github.com/learnables/learn2learn/blob/63ff92e61b4e65760c02b20b918f6bea18b4ed8f/learn2learn/algorithms/maml.py
# Shape: second-order MAML: inner-loop gradients are taken with create_graph=True to build fast weights, the query loss of every task in the meta-batch is backwarded, and only floats leave the iteration
# Verdict: clean
import torch
import torch.nn.functional as F
from torch.func import functional_call


def adapt(model, params, x, y, inner_lr, steps):
    for _ in range(steps):
        loss = F.cross_entropy(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
    return params


meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for iteration in range(60_000):
    meta_opt.zero_grad()
    meta_train_error, meta_train_acc = 0.0, 0.0
    for task in taskset.sample(32):
        (sx, sy), (qx, qy) = task
        fast = adapt(model, dict(model.named_parameters()), sx, sy, inner_lr=0.4, steps=1)
        logits = functional_call(model, fast, (qx,))
        query_loss = F.cross_entropy(logits, qy)
        query_loss.backward()
        meta_train_error += query_loss.item()
        meta_train_acc += (logits.argmax(1) == qy).float().mean().item()
    for p in model.parameters():
        p.grad.mul_(1.0 / 32)
    meta_opt.step()
