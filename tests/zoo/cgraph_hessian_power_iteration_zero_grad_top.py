# Source: https://github.com/amirgholami/PyHessian/issues/25
# Shape: Hessian eigenvalue estimation over a dataloader: each batch zeroes the model's grads, calls loss.backward(create_graph=True), reads p.grad and takes a plain autograd.grad for the Hessian-vector product; the zero_grad (set_to_none) at the top of each batch drops the previous .grad cycle (measured: 0 B/iter)
# Verdict: clean
import torch


def dataloader_hv_product(model, criterion, data_loader, v):
    params = [p for p in model.parameters() if p.requires_grad]
    num_data = 0
    THv = [torch.zeros_like(p) for p in params]
    for inputs, targets in data_loader:
        model.zero_grad()
        tmp_num_data = inputs.size(0)
        loss = criterion(model(inputs), targets)
        loss.backward(create_graph=True)
        gradsH = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        Hv = torch.autograd.grad(gradsH, params, grad_outputs=v, only_inputs=True, retain_graph=False)
        THv = [t + h * float(tmp_num_data) for t, h in zip(THv, Hv)]
        num_data += tmp_num_data
    THv = [t / float(num_data) for t in THv]
    eigenvalue = sum(torch.sum(t * u) for t, u in zip(THv, v)).item()
    return eigenvalue, THv
