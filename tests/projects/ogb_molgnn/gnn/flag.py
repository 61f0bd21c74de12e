"""FLAG: adversarial feature augmentation with a few ascent steps on a node perturbation."""
import torch


def flag_step(model, data, y, criterion, optimizer, m=3, step_size=1e-3):
    optimizer.zero_grad()
    shape = (data["x"].size(0), model.graph_pred_linear.in_features)
    perturb = torch.empty(shape).uniform_(-step_size, step_size).requires_grad_()
    pred, _ = model(data, perturb)
    loss = criterion(pred, y) / m
    for _ in range(m - 1):
        loss.backward(retain_graph=True)  # known-miss: TLK201
        perturb_data = perturb.detach() + step_size * torch.sign(perturb.grad.detach())
        perturb.data = perturb_data.data
        perturb.grad[:] = 0
        pred, _ = model(data, perturb)
        loss = criterion(pred, y) / m
    loss.backward()
    optimizer.step()
    return loss.item() * m
