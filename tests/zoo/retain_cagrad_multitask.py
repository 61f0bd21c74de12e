# Source: https://github.com/Cranial-XIX/CAGrad
# Shape: the first task loss is backwarded with retain_graph=True because the second task's backward still needs the shared encoder graph; the last backward frees it, so nothing is carried to the next iteration.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self, class_nb=4, width=16):
        super().__init__()
        self.class_nb = class_nb
        self.shared = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.pred_semantic = nn.Conv2d(width, class_nb, 1)
        self.pred_depth = nn.Conv2d(width, 1, 1)

    def shared_modules(self):
        return [self.shared]

    def zero_grad_shared_modules(self):
        for mm in self.shared_modules():
            mm.zero_grad()

    def forward(self, x):
        h = self.shared(x)
        return [F.log_softmax(self.pred_semantic(h), dim=1), self.pred_depth(h)]


def model_fit(x_pred, x_output, task_type):
    if task_type == "semantic":
        return F.nll_loss(x_pred, x_output, ignore_index=-1)
    return torch.sum(torch.abs(x_pred - x_output)) / x_pred.numel()


def grad2vec(m, grads, grad_dims, task):
    grads[:, task].fill_(0.0)
    cnt = 0
    for mm in m.shared_modules():
        for p in mm.parameters():
            if p.grad is not None:
                beg = 0 if cnt == 0 else sum(grad_dims[:cnt])
                en = sum(grad_dims[: cnt + 1])
                grads[beg:en, task].copy_(p.grad.data.view(-1))
            cnt += 1


def overwrite_grad(m, newgrad, grad_dims):
    newgrad = newgrad * 2  # the learning rate is tuned for the sum of the two task losses
    cnt = 0
    for mm in m.shared_modules():
        for param in mm.parameters():
            beg = 0 if cnt == 0 else sum(grad_dims[:cnt])
            en = sum(grad_dims[: cnt + 1])
            param.grad = newgrad[beg:en].contiguous().view(param.data.size()).data.clone()
            cnt += 1


def cagrad(grads, alpha=0.5, rescale=1):
    GG = grads.t().mm(grads)
    g0_norm = (GG.mean() + 1e-8).sqrt()
    best_w, best_obj = None, None
    for w0 in torch.linspace(0, 1, 21):
        w = torch.stack([w0, 1 - w0])
        ww = w.view(-1, 1)
        obj = ww.t().mm(GG.mean(1, keepdim=True)) + (alpha * g0_norm) * (ww.t().mm(GG).mm(ww) + 1e-8).sqrt()
        if best_obj is None or obj.item() < best_obj:
            best_obj, best_w = obj.item(), w
    gw = (grads * best_w.view(1, -1)).sum(1)
    gw_norm = gw.norm()
    lmbda = g0_norm / (gw_norm + 1e-8)
    g = grads.mean(1) + lmbda * gw * alpha
    return g if rescale == 0 else g / (1 + alpha ** 2)


def make_batches(n, batch_size=4, size=16, class_nb=4):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, 3, size, size, generator=g),
             torch.randint(0, class_nb, (batch_size, size, size), generator=g),
             torch.rand(batch_size, 1, size, size, generator=g)) for _ in range(n)]


def train(multi_task_model, optimizer, batches, alpha=0.4):
    grad_dims = [p.data.numel() for mm in multi_task_model.shared_modules() for p in mm.parameters()]
    grads = torch.Tensor(sum(grad_dims), 2)
    avg_cost = torch.zeros(2)
    multi_task_model.train()
    for train_data, train_label, train_depth in batches:
        train_pred = multi_task_model(train_data)
        train_loss = [model_fit(train_pred[0], train_label, "semantic"),
                      model_fit(train_pred[1], train_depth, "depth")]
        train_loss_tmp = [train_loss[i] * 1.0 for i in range(2)]

        optimizer.zero_grad()
        for i in range(2):
            if i == 0:
                train_loss_tmp[i].backward(retain_graph=True)
            else:
                train_loss_tmp[i].backward()
            grad2vec(multi_task_model, grads, grad_dims, i)
            multi_task_model.zero_grad_shared_modules()
        g = cagrad(grads, alpha, rescale=1)
        overwrite_grad(multi_task_model, g, grad_dims)
        optimizer.step()

        avg_cost[0] += train_loss[0].item() / len(batches)
        avg_cost[1] += train_loss[1].item() / len(batches)
    return avg_cost


def run(steps):
    torch.manual_seed(0)
    model = MultiTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    avg_cost = train(model, optimizer, make_batches(steps))
    return {"model": model, "avg_cost": avg_cost}


if __name__ == "__main__":
    print(run(4)["avg_cost"])
