# Source: https://github.com/khanrc/pt.darts/blob/1f50da6b480e43b0a8a108d215329e18dfce8804/architect.py
# Shape: fixed twin: unrolled_backward takes the val-loss gradients with torch.autograd.grad(loss, v_alphas + v_weights) as pt.darts does; nothing is written to v_net's .grad and no higher-order graph is built, so each step's unrolled graph is freed.
# Verdict: clean
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

PRIMITIVES = ['max_pool_3x3', 'avg_pool_3x3', 'skip_connect', 'conv_3x3', 'none']


class Zero(nn.Module):
    def forward(self, x):
        return x * 0.


class StdConv(nn.Module):
    def __init__(self, C_in, C_out, kernel_size, stride, padding, affine=False):
        super().__init__()
        self.net = nn.Sequential(
            nn.ReLU(),
            nn.Conv2d(C_in, C_out, kernel_size, stride, padding, bias=False),
            nn.BatchNorm2d(C_out, affine=affine)
        )

    def forward(self, x):
        return self.net(x)


OPS = {
    'none': lambda C: Zero(),
    'avg_pool_3x3': lambda C: nn.AvgPool2d(3, 1, 1, count_include_pad=False),
    'max_pool_3x3': lambda C: nn.MaxPool2d(3, 1, 1),
    'skip_connect': lambda C: nn.Identity(),
    'conv_3x3': lambda C: StdConv(C, C, 3, 1, 1),
}


class MixedOp(nn.Module):
    """ Mixed operation """
    def __init__(self, C):
        super().__init__()
        self._ops = nn.ModuleList([OPS[p](C) for p in PRIMITIVES])

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class SearchCell(nn.Module):
    def __init__(self, n_nodes, C_pp, C_p, C):
        super().__init__()
        self.n_nodes = n_nodes
        self.preproc0 = StdConv(C_pp, C, 1, 1, 0)
        self.preproc1 = StdConv(C_p, C, 1, 1, 0)
        self.dag = nn.ModuleList()
        for i in range(self.n_nodes):
            self.dag.append(nn.ModuleList([MixedOp(C) for _ in range(2 + i)]))

    def forward(self, s0, s1, w_dag):
        s0 = self.preproc0(s0)
        s1 = self.preproc1(s1)
        states = [s0, s1]
        for edges, w_list in zip(self.dag, w_dag):
            s_cur = sum(edges[i](s, w) for i, (s, w) in enumerate(zip(states, w_list)))
            states.append(s_cur)
        return torch.cat(states[2:], dim=1)


class SearchCNN(nn.Module):
    def __init__(self, C_in, C, n_classes, n_layers, n_nodes=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(C_in, C, 3, 1, 1, bias=False), nn.BatchNorm2d(C))
        C_pp, C_p = C, C
        self.cells = nn.ModuleList()
        for i in range(n_layers):
            cell = SearchCell(n_nodes, C_pp, C_p, C)
            self.cells.append(cell)
            C_pp, C_p = C_p, C * n_nodes
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.linear = nn.Linear(C_p, n_classes)

    def forward(self, x, weights_normal):
        s0 = s1 = self.stem(x)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1, weights_normal)
        out = self.gap(s1).flatten(1)
        return self.linear(out)


class SearchCNNController(nn.Module):
    """ SearchCNN controller supporting multi-gpu """
    def __init__(self, C_in, C, n_classes, n_layers, criterion, n_nodes=2):
        super().__init__()
        self.n_nodes = n_nodes
        self.criterion = criterion
        n_ops = len(PRIMITIVES)
        self.alpha_normal = nn.ParameterList()
        for i in range(n_nodes):
            self.alpha_normal.append(nn.Parameter(1e-3 * torch.randn(i + 2, n_ops)))
        self._alphas = [(n, p) for n, p in self.named_parameters() if 'alpha' in n]
        self.net = SearchCNN(C_in, C, n_classes, n_layers, n_nodes)

    def forward(self, x):
        weights_normal = [F.softmax(alpha, dim=-1) for alpha in self.alpha_normal]
        return self.net(x, weights_normal)

    def loss(self, X, y):
        logits = self.forward(X)
        return self.criterion(logits, y)

    def weights(self):
        return self.net.parameters()

    def named_weights(self):
        return self.net.named_parameters()

    def alphas(self):
        for n, p in self._alphas:
            yield p


class Architect():
    """ Compute gradients of alphas """
    def __init__(self, net, w_momentum, w_weight_decay):
        self.net = net
        self.v_net = copy.deepcopy(net)
        self.w_momentum = w_momentum
        self.w_weight_decay = w_weight_decay

    def virtual_step(self, trn_X, trn_y, xi, w_optim):
        # forward & calc loss
        loss = self.net.loss(trn_X, trn_y)  # L_trn(w)

        # compute gradient
        gradients = torch.autograd.grad(loss, self.net.weights())

        # do virtual step (update gradient)
        with torch.no_grad():
            for w, vw, g in zip(self.net.weights(), self.v_net.weights(), gradients):
                m = w_optim.state[w].get('momentum_buffer', 0.) * self.w_momentum
                vw.copy_(w - xi * (m + g + self.w_weight_decay * w))

            # synchronize alphas
            for a, va in zip(self.net.alphas(), self.v_net.alphas()):
                va.copy_(a)

    def unrolled_backward(self, trn_X, trn_y, val_X, val_y, xi, w_optim):
        # do virtual step (calc w`)
        self.virtual_step(trn_X, trn_y, xi, w_optim)

        # calc unrolled loss
        loss = self.v_net.loss(val_X, val_y)  # L_val(w`)

        # compute gradient
        v_alphas = tuple(self.v_net.alphas())
        v_weights = tuple(self.v_net.weights())
        v_grads = torch.autograd.grad(loss, v_alphas + v_weights)
        dalpha = v_grads[:len(v_alphas)]
        dw = v_grads[len(v_alphas):]

        hessian = self.compute_hessian(dw, trn_X, trn_y)

        # update final gradient = dalpha - xi*hessian
        with torch.no_grad():
            for alpha, da, h in zip(self.net.alphas(), dalpha, hessian):
                alpha.grad = da - xi * h

    def compute_hessian(self, dw, trn_X, trn_y):
        norm = torch.cat([w.view(-1) for w in dw]).norm()
        eps = 0.01 / norm

        # w+ = w + eps*dw`
        with torch.no_grad():
            for p, d in zip(self.net.weights(), dw):
                p += eps * d
        loss = self.net.loss(trn_X, trn_y)
        dalpha_pos = torch.autograd.grad(loss, self.net.alphas())  # dalpha { L_trn(w+) }

        # w- = w - eps*dw`
        with torch.no_grad():
            for p, d in zip(self.net.weights(), dw):
                p -= 2. * eps * d
        loss = self.net.loss(trn_X, trn_y)
        dalpha_neg = torch.autograd.grad(loss, self.net.alphas())  # dalpha { L_trn(w-) }

        # recover w
        with torch.no_grad():
            for p, d in zip(self.net.weights(), dw):
                p += eps * d

        hessian = [(p - n) / 2. * eps for p, n in zip(dalpha_pos, dalpha_neg)]
        return hessian


class AverageMeter():
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def make_batches(n):
    # one (train, valid) minibatch seed per search step
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def get_minibatch(seed, N=8):
    g = torch.Generator().manual_seed(seed)
    trn_X, val_X = torch.randn(N, 3, 6, 6, generator=g), torch.randn(N, 3, 6, 6, generator=g)
    trn_y, val_y = torch.randint(0, 10, (N,), generator=g), torch.randint(0, 10, (N,), generator=g)
    return (trn_X, trn_y), (val_X, val_y)


def run(batches):
    class config:
        w_lr = 0.025
        w_momentum = 0.9
        w_weight_decay = 3e-4
        w_grad_clip = 5.
        alpha_lr = 3e-4
        alpha_weight_decay = 1e-3

    net_crit = nn.CrossEntropyLoss()
    model = SearchCNNController(3, 8, 10, n_layers=2, criterion=net_crit)
    w_optim = torch.optim.SGD(model.weights(), config.w_lr, momentum=config.w_momentum,
                              weight_decay=config.w_weight_decay)
    alpha_optim = torch.optim.Adam(model.alphas(), config.alpha_lr, betas=(0.5, 0.999),
                                   weight_decay=config.alpha_weight_decay)
    architect = Architect(model, config.w_momentum, config.w_weight_decay)

    losses = AverageMeter()
    lr = config.w_lr
    model.train()
    for step, seed in enumerate(batches):
        (trn_X, trn_y), (val_X, val_y) = get_minibatch(seed)
        N = trn_X.size(0)

        # phase 2. architect step (alpha)
        alpha_optim.zero_grad()
        architect.unrolled_backward(trn_X, trn_y, val_X, val_y, lr, w_optim)
        alpha_optim.step()

        # phase 1. child network step (w)
        w_optim.zero_grad()
        logits = model(trn_X)
        loss = model.criterion(logits, trn_y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.weights(), config.w_grad_clip)
        w_optim.step()

        losses.update(loss.item(), N)
    return losses.avg
