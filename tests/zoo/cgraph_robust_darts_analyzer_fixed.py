# Source: https://github.com/automl/RobustDARTS/blob/07f54ba413936b84d9ff3e014c9c1a219da72585/src/search/analyze.py
# Shape: the Analyzer takes the attached alpha gradients of the unrolled model with autograd.grad(create_graph=True); they are consumed by the Hessian rows (copied out with .data) and dropped, so nothing outlives compute_Hw; the Architect's second-order step keeps its finite-difference Hessian-vector product.
# Verdict: clean
"""DARTS search with the RobustDARTS dominant-eigenvalue tracking (DARTS-ES),
organised like the repo: operations / a MixedOp search cell / a Network with
arch_parameters() and new(), the second-order Architect of DARTS and an
Analyzer that computes the Hessian of the validation loss w.r.t. the alphas."""
import argparse

import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(**kw):
    args = argparse.Namespace(
        batch_size=16, learning_rate=0.025, learning_rate_min=0.001, momentum=0.9,
        weight_decay=3e-4, arch_learning_rate=3e-4, arch_weight_decay=1e-3,
        init_channels=8, layers=2, unrolled=True, report_freq_hessian=2, grad_clip=5)
    for k, v in kw.items():
        setattr(args, k, v)
    return args


def _concat(xs):
    return torch.cat([x.view(-1) for x in xs])


# ------------------------------------------------------------------ operations.py / model_search.py
OPS = {
    'none': lambda C: Zero(),
    'skip_connect': lambda C: nn.Identity(),
    'avg_pool_3x3': lambda C: nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False),
    'conv_3x3': lambda C: nn.Sequential(nn.ReLU(inplace=False), nn.Conv2d(C, C, 3, padding=1, bias=False),
                                        nn.BatchNorm2d(C, affine=False)),
}
PRIMITIVES = list(OPS.keys())


class Zero(nn.Module):
    def forward(self, x):
        return x.mul(0.)


class MixedOp(nn.Module):
    def __init__(self, C):
        super().__init__()
        self._ops = nn.ModuleList([OPS[p](C) for p in PRIMITIVES])

    def forward(self, x, weights):
        return sum(w * op(x) for w, op in zip(weights, self._ops))


class Cell(nn.Module):
    def __init__(self, C, steps=2):
        super().__init__()
        self._steps = steps
        self._ops = nn.ModuleList()
        for i in range(self._steps):
            for j in range(1 + i):
                self._ops.append(MixedOp(C))

    def forward(self, s0, weights):
        states = [s0]
        offset = 0
        for i in range(self._steps):
            s = sum(self._ops[offset + j](h, weights[offset + j]) for j, h in enumerate(states))
            offset += len(states)
            states.append(s)
        return torch.cat(states[1:], dim=1)


class Network(nn.Module):
    def __init__(self, C, num_classes, layers, criterion, steps=2):
        super().__init__()
        self._C, self._num_classes, self._layers = C, num_classes, layers
        self._criterion = criterion
        self._steps = steps
        self.stem = nn.Sequential(nn.Conv2d(3, C, 3, padding=1, bias=False), nn.BatchNorm2d(C))
        self.cells = nn.ModuleList()
        C_in = C
        for _ in range(layers):
            self.cells.append(nn.ModuleDict({'pre': nn.Conv2d(C_in, C, 1, bias=False),
                                             'cell': Cell(C, steps)}))
            C_in = C * steps
        self.classifier = nn.Linear(C_in, num_classes)
        self._initialize_alphas()

    def _initialize_alphas(self):
        k = sum(1 + i for i in range(self._steps))
        self.alphas_normal = nn.Parameter(1e-3 * torch.randn(k, len(PRIMITIVES)))
        self._arch_parameters = [self.alphas_normal]

    def new(self):
        model_new = Network(self._C, self._num_classes, self._layers, self._criterion, self._steps)
        for x, y in zip(model_new.arch_parameters(), self.arch_parameters()):
            x.data.copy_(y.data)
        return model_new

    def arch_parameters(self):
        return self._arch_parameters

    def weight_parameters(self):
        return [p for n, p in self.named_parameters() if 'alphas' not in n]

    def forward(self, input):
        s = self.stem(input)
        weights = F.softmax(self.alphas_normal, dim=-1)
        for layer in self.cells:
            s = layer['cell'](layer['pre'](s), weights)
        out = F.adaptive_avg_pool2d(s, 1).flatten(1)
        return self.classifier(out)

    def _loss(self, input, target):
        return self._criterion(self(input), target)


# ------------------------------------------------------------------ architect.py
class Architect(object):
    def __init__(self, model, args):
        self.network_momentum = args.momentum
        self.network_weight_decay = args.weight_decay
        self.model = model
        self.optimizer = torch.optim.Adam(self.model.arch_parameters(), lr=args.arch_learning_rate,
                                          betas=(0.5, 0.999), weight_decay=args.arch_weight_decay)

    def _compute_unrolled_model(self, input, target, eta, network_optimizer):
        loss = self.model._loss(input, target)
        theta = _concat(self.model.weight_parameters()).data
        try:
            moment = _concat(network_optimizer.state[v]['momentum_buffer']
                             for v in self.model.weight_parameters()).mul_(self.network_momentum)
        except KeyError:
            moment = torch.zeros_like(theta)
        dtheta = _concat(torch.autograd.grad(loss, self.model.weight_parameters())).data \
            + self.network_weight_decay * theta
        return self._construct_model_from_theta(theta.sub(eta * (moment + dtheta)))

    def _construct_model_from_theta(self, theta):
        model_new = self.model.new()
        model_dict = self.model.state_dict()
        params, offset = {}, 0
        for k, v in self.model.named_parameters():
            if 'alphas' in k:
                continue
            v_length = int(math.prod(v.size()))
            params[k] = theta[offset: offset + v_length].view(v.size())
            offset += v_length
        assert offset == len(theta)
        model_dict.update(params)
        model_new.load_state_dict(model_dict)
        return model_new

    def _hessian_vector_product(self, vector, input, target, r=1e-2):
        R = r / _concat(vector).norm()
        for p, v in zip(self.model.weight_parameters(), vector):
            p.data.add_(v, alpha=R)
        loss = self.model._loss(input, target)
        grads_p = torch.autograd.grad(loss, self.model.arch_parameters())
        for p, v in zip(self.model.weight_parameters(), vector):
            p.data.sub_(v, alpha=2 * R)
        loss = self.model._loss(input, target)
        grads_n = torch.autograd.grad(loss, self.model.arch_parameters())
        for p, v in zip(self.model.weight_parameters(), vector):
            p.data.add_(v, alpha=R)
        return [(x - y).div_(2 * R) for x, y in zip(grads_p, grads_n)]

    def _backward_step_unrolled(self, input_train, target_train, input_valid, target_valid, eta,
                                network_optimizer):
        unrolled_model = self._compute_unrolled_model(input_train, target_train, eta, network_optimizer)
        unrolled_loss = unrolled_model._loss(input_valid, target_valid)
        unrolled_loss.backward()
        dalpha = [v.grad for v in unrolled_model.arch_parameters()]
        vector = [v.grad.data for v in unrolled_model.weight_parameters()]
        implicit_grads = self._hessian_vector_product(vector, input_train, target_train)
        for g, ig in zip(dalpha, implicit_grads):
            g.data.sub_(ig.data, alpha=eta)
        for v, g in zip(self.model.arch_parameters(), dalpha):
            if v.grad is None:
                v.grad = g.data.clone()
            else:
                v.grad.data.copy_(g.data)

    def step(self, input_train, target_train, input_valid, target_valid, eta, network_optimizer, unrolled):
        self.optimizer.zero_grad()
        if unrolled:
            self._backward_step_unrolled(input_train, target_train, input_valid, target_valid, eta,
                                         network_optimizer)
        else:
            self.model._loss(input_valid, target_valid).backward()
        self.optimizer.step()


# ------------------------------------------------------------------ analyze.py
class Analyzer(Architect):
    def __init__(self, model, args):
        super().__init__(model, args)
        self.weight_decay = args.arch_weight_decay
        self.hessian = None

    def zero_grads(self, parameters):
        for p in parameters:
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()

    def _unrolled_arch_grads(self, input_train, target_train, input_valid, target_valid, eta,
                             network_optimizer):
        """d L_val(w*(alpha), alpha) / d alpha with the graph kept for a second derivative"""
        unrolled_model = self._compute_unrolled_model(input_train, target_train, eta, network_optimizer)
        unrolled_loss = unrolled_model._loss(input_valid, target_valid)
        arch = unrolled_model.arch_parameters()
        grads = torch.autograd.grad(unrolled_loss, arch, create_graph=True)
        return grads, arch

    def compute_Hw(self, input_train, target_train, input_valid, target_valid, eta, network_optimizer):
        self.zero_grads(self.model.parameters())
        grads, arch = self._unrolled_arch_grads(input_train, target_train, input_valid, target_valid,
                                                eta, network_optimizer)
        grad = _concat([g + self.weight_decay * a for g, a in zip(grads, arch)])
        n = grad.numel()
        out = torch.zeros(n, n)
        for j in range(n):
            row = torch.autograd.grad(grad[j], arch, retain_graph=True)
            out[j] = _concat(row).data
        self.hessian = 0.5 * (out + out.t())
        return self.hessian

    def compute_eigenvalues(self):
        if self.hessian is None:
            raise ValueError
        return torch.linalg.eigvalsh(self.hessian)


# ------------------------------------------------------------------ train_search.py
def make_batches(num_batches, batch_size=16, num_classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    protos = torch.randn(num_classes, 3, 8, 8, generator=g)
    for _ in range(num_batches):
        out = []
        for _split in range(2):  # (train, valid) halves of the search split
            t = torch.randint(0, num_classes, (batch_size,), generator=g)
            x = protos[t] + 0.7 * torch.randn(batch_size, 3, 8, 8, generator=g)
            out += [x, t]
        yield tuple(out)


def train(train_queue, model, architect, analyzer, criterion, optimizer, lr, args, ev_history):
    for step, (input, target, input_search, target_search) in enumerate(train_queue):
        model.train()
        architect.step(input, target, input_search, target_search, lr, optimizer, unrolled=args.unrolled)

        optimizer.zero_grad()
        logits = model(input)
        loss = criterion(logits, target)
        loss.backward()
        nn.utils.clip_grad_norm_(model.weight_parameters(), args.grad_clip)
        optimizer.step()

        if (step + 1) % args.report_freq_hessian == 0:
            analyzer.compute_Hw(input, target, input_search, target_search, lr, optimizer)
            ev = max(analyzer.compute_eigenvalues().tolist())
            ev_history.append(ev)


def run(steps):
    torch.manual_seed(0)
    args = get_args()
    criterion = nn.CrossEntropyLoss()
    model = Network(args.init_channels, 4, args.layers, criterion)
    optimizer = torch.optim.SGD(model.weight_parameters(), args.learning_rate,
                                momentum=args.momentum, weight_decay=args.weight_decay)
    architect = Architect(model, args)
    analyzer = Analyzer(model, args)
    ev_history = []
    train(make_batches(steps, args.batch_size), model, architect, analyzer, criterion, optimizer,
          args.learning_rate, args, ev_history)
    return {'model': model, 'alphas': model.arch_parameters(), 'ev_history': ev_history}


if __name__ == "__main__":
    run(10)
