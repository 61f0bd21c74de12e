# Source: https://github.com/hosseinshn/GradNorm/issues/9
# Shape: multi-task step measures each task's gradient norm on the last shared layer with autograd.grad(retain_graph=True) and then backwards the weighted total through the same graph; every retained graph is used later in the iteration (norms are logged as floats)
# Verdict: clean
import torch


def train_step(model, task_weights, batch, optimizer, norm_log):
    inputs, targets = batch
    outputs = model(inputs)
    task_losses = [head_loss(out, tgt) for head_loss, out, tgt in zip(model.losses, outputs, targets)]
    shared = model.shared_last_layer.weight
    norms = []
    for k, task_loss in enumerate(task_losses):
        g = torch.autograd.grad(task_weights[k] * task_loss, shared, retain_graph=True)[0]
        norms.append(g.norm().item())
    total = sum(w * l for w, l in zip(task_weights, task_losses))
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
    norm_log.append(norms)


norm_log = []
for epoch in range(epochs):
    for batch in loader:
        train_step(model, task_weights, batch, optimizer, norm_log)
