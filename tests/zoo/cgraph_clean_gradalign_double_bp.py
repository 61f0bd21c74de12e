# Source: https://github.com/tml-epfl/understanding-fast-adv-training/blob/250265e9cc891e1c4f82ba2a2ac3f85f30010fd5/train.py
# Shape: GradAlign: grad2 comes from autograd.grad(..., create_graph=True) and goes into reg, which is added to the FGSM loss and backwarded in the same iteration; the running stats take loss.item()/reg.item() and the gradient-norm stat is computed under no_grad, so no double-backprop graph outlives its step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def clamp(X, l, u):
    return torch.max(torch.min(X, torch.as_tensor(u)), torch.as_tensor(l))


def get_uniform_delta(shape, eps, requires_grad=True):
    delta = torch.zeros(shape)
    delta.uniform_(-eps, eps)
    delta.requires_grad = requires_grad
    return delta


def l2_norm_batch(v):
    norms = (v ** 2).sum([1, 2, 3]) ** 0.5
    return norms


def sign(grad):
    grad_sign = torch.sign(grad)
    return grad_sign


def get_input_grad(model, X, y, eps, delta_init='none', backprop=False):
    if delta_init == 'none':
        delta = torch.zeros_like(X, requires_grad=True)
    elif delta_init == 'random_uniform':
        delta = get_uniform_delta(X.shape, eps, requires_grad=True)
    else:
        raise ValueError('wrong delta init')
    output = model(X + delta)
    loss = F.cross_entropy(output, y)
    grad = torch.autograd.grad(loss, delta, create_graph=True if backprop else False)[0]
    if not backprop:
        grad, delta = grad.detach(), delta.detach()
    return grad


class CNN4(nn.Module):
    def __init__(self, n_cls=10, n_filters=16):
        super().__init__()
        self.conv1 = nn.Conv2d(3, n_filters, 3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(n_filters, 2 * n_filters, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(2 * n_filters * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_cls)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 4).flatten(1)
        return self.fc2(F.relu(self.fc1(x)))


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    class args:
        eps = 8
        fgsm_alpha = 1.25
        grad_align_cos_lambda = 0.2
        eval_iter_freq = 1000
        lr_max = 0.05

    model = CNN4()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr_max, momentum=0.9, weight_decay=5e-4)
    eps = args.eps / 255
    loss_function = nn.CrossEntropyLoss()
    iteration = 0
    train_loss, train_reg, train_acc, train_n, grad_norm_x, avg_delta_l2 = 0, 0, 0, 0, 0, 0
    log = []

    for i, seed in enumerate(batches):
        g = torch.Generator().manual_seed(seed)
        X, y = torch.rand(16, 3, 8, 8, generator=g), torch.randint(0, 10, (16,), generator=g)

        delta = get_uniform_delta(X.shape, eps, requires_grad=True)
        X_adv = clamp(X + delta, 0, 1)
        output = model(X_adv)
        loss = F.cross_entropy(output, y)
        grad = torch.autograd.grad(loss, delta, create_graph=False)[0]
        grad = grad.detach()

        argmax_delta = eps * sign(grad)
        delta.data = clamp(delta.data + args.fgsm_alpha * argmax_delta, -eps, eps)
        delta.data = clamp(X + delta.data, 0, 1) - X
        delta = delta.detach()

        output = model(X + delta)
        loss = loss_function(output, y)

        reg = torch.zeros(1)[0]  # for .item() to run correctly
        if args.grad_align_cos_lambda != 0.0:
            grad2 = get_input_grad(model, X, y, eps, delta_init='random_uniform', backprop=True)
            grads_nnz_idx = ((grad ** 2).sum([1, 2, 3]) ** 0.5 != 0) * ((grad2 ** 2).sum([1, 2, 3]) ** 0.5 != 0)
            grad1, grad2 = grad[grads_nnz_idx], grad2[grads_nnz_idx]
            grad1_norms, grad2_norms = l2_norm_batch(grad1), l2_norm_batch(grad2)
            grad1_normalized = grad1 / grad1_norms[:, None, None, None]
            grad2_normalized = grad2 / grad2_norms[:, None, None, None]
            cos = torch.sum(grad1_normalized * grad2_normalized, (1, 2, 3))
            reg += args.grad_align_cos_lambda * (1.0 - cos.mean())

        loss += reg

        opt.zero_grad()
        loss.backward()
        opt.step()

        train_loss += loss.item() * y.size(0)
        train_reg += reg.item() * y.size(0)
        train_acc += (output.max(1)[1] == y).sum().item()
        train_n += y.size(0)

        with torch.no_grad():  # no grad for the stats
            grad_norm_x += l2_norm_batch(grad).sum().item()
            delta_final = clamp(X + delta, 0, 1) - X
            avg_delta_l2 += ((delta_final ** 2).sum([1, 2, 3]) ** 0.5).sum().item()

        if iteration % 10 == 0:
            log.append((train_loss / train_n, train_reg / train_n, train_acc / train_n))
        iteration += 1
        X_prev, y_prev = X.clone(), y.clone()  # needed for Free-AT
    return log
