# Source: https://github.com/haizhongzheng/ATTA/blob/aafedf68978bd151c410e648fb6352ab0dd10f5f/train_atta_cifar.py
# Shape: the PGD helper no longer detaches x_adv between steps, so the adversarial examples written back into the accumulated perturbation bank cifar_x carry their PGD graph; the next visit of a sample backwards through the bank into an already-freed graph, which is silenced with loss.backward(retain_graph=True), so the bank's graph grows every iteration.
# Verdict: leak
"""Adversarial Training with Transferable Adversarial examples (ATTA, Zheng et
al. 2020): adversarial perturbations are accumulated across epochs in a
per-sample bank and refined by a few PGD steps each time a sample is seen.
Organised like the repo: args, adaptive_data_aug (atta_aug / inverse_atta_aug),
adv_attack.get_adv_atta, train(), adjust_learning_rate() and main()."""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(**kw):
    args = argparse.Namespace(batch_size=16, epochs=1, epochs_reset=10, weight_decay=2e-4, lr=0.1,
                              momentum=0.9, epsilon=0.031, num_steps=2, step_size=0.007, beta=6.0,
                              seed=1, log_interval=5, training_method='mat', num_examples=64, pad=2)
    for k, v in kw.items():
        setattr(args, k, v)
    return args


# ------------------------------------------------------------------ models
class SmallWideResNet(nn.Module):
    def __init__(self, num_classes=10, width=16):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * width)
        self.fc = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        return self.fc(F.adaptive_avg_pool2d(out, 1).flatten(1))


# ------------------------------------------------------------------ adaptive_data_aug.py
def atta_aug(x_pad, generator, crop=16):
    """random crop + horizontal flip of the padded images; returns the crops and
    the transform info needed to write the refined crops back"""
    n, _, H, W = x_pad.shape
    rows = torch.randint(0, H - crop + 1, (n,), generator=generator)
    cols = torch.randint(0, W - crop + 1, (n,), generator=generator)
    flips = torch.rand(n, generator=generator) < 0.5
    out = []
    for i in range(n):
        c = x_pad[i, :, rows[i]:rows[i] + crop, cols[i]:cols[i] + crop]
        out.append(c.flip(-1) if flips[i] else c)
    return torch.stack(out), (rows, cols, flips, crop)


def atta_aug_trans(x_pad, transform_info):
    rows, cols, flips, crop = transform_info
    out = []
    for i in range(x_pad.size(0)):
        c = x_pad[i, :, rows[i]:rows[i] + crop, cols[i]:cols[i] + crop]
        out.append(c.flip(-1) if flips[i] else c)
    return torch.stack(out)


def inverse_atta_aug(x_pad, x_crop, transform_info):
    rows, cols, flips, crop = transform_info
    rst = []
    for i in range(x_pad.size(0)):
        c = x_crop[i].flip(-1) if flips[i] else x_crop[i]
        top = x_pad[i, :, :rows[i], :]
        mid = torch.cat([x_pad[i, :, rows[i]:rows[i] + crop, :cols[i]], c,
                         x_pad[i, :, rows[i]:rows[i] + crop, cols[i] + crop:]], dim=-1)
        bot = x_pad[i, :, rows[i] + crop:, :]
        rst.append(torch.cat([top, mid, bot], dim=-2))
    return torch.stack(rst)


# ------------------------------------------------------------------ adv_attack.py
def get_adv_atta(model, x_natural, x_adv, y, step_size=0.003, epsilon=0.031, num_steps=10, loss_type='mat'):
    model.eval()
    batch_size = len(x_natural)
    if loss_type == 'mat':
        for i in range(num_steps):
            x_adv.requires_grad_()
            ce_loss = nn.CrossEntropyLoss()
            with torch.enable_grad():
                loss_kl = (1 / batch_size) * ce_loss(F.log_softmax(model(x_adv), dim=1), y)
            grad = torch.autograd.grad(loss_kl, [x_adv])[0]
            x_adv = x_adv + step_size * torch.sign(grad)
            x_adv = torch.min(torch.max(x_adv, x_natural - epsilon), x_natural + epsilon)
            x_adv = torch.clamp(x_adv, 0.0, 1.0)
    else:
        raise ValueError(loss_type)
    return x_adv


# ------------------------------------------------------------------ train_atta_cifar.py
def make_batches(num_examples=64, num_classes=10, pad=2, seed=1):
    """padded CIFAR-like training tensors (images in [0,1]) and labels"""
    g = torch.Generator().manual_seed(seed)
    protos = torch.rand(num_classes, 3, 16, 16, generator=g)
    y = torch.randint(0, num_classes, (num_examples,), generator=g)
    x = (0.7 * protos[y] + 0.3 * torch.rand(num_examples, 3, 16, 16, generator=g)).clamp(0, 1)
    return F.pad(x, (pad, pad, pad, pad)), y


def train(args, model, cifar_nat_x, cifar_x, cifar_y, optimizer, epoch, num_iters, generator, log):
    model.train()
    num_of_example = cifar_x.size(0)
    batch_size = args.batch_size
    for i in range(num_iters):
        idx = torch.randperm(num_of_example, generator=generator)[:batch_size]
        x_batch = cifar_x[idx]
        x_nat_batch = cifar_nat_x[idx]
        y_batch = cifar_y[idx]

        # atta-aug
        x_batch, transform_info = atta_aug(x_batch, generator)
        x_nat_batch = atta_aug_trans(x_nat_batch, transform_info)

        x_adv_next = get_adv_atta(model=model, x_natural=x_nat_batch, x_adv=x_batch, y=y_batch,
                                  step_size=args.step_size, epsilon=args.epsilon,
                                  num_steps=args.num_steps, loss_type="mat")
        model.train()
        optimizer.zero_grad()
        criterion_ce = nn.CrossEntropyLoss()
        loss = criterion_ce(F.log_softmax(model(x_adv_next), dim=1), y_batch)
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()

        if i % args.log_interval == 0:
            log.append('Train Epoch: {} [{}]\tLoss: {:.6f}'.format(epoch, i, loss.item()))

        cifar_x[idx] = inverse_atta_aug(cifar_x[idx], x_adv_next, transform_info)
    return cifar_x


def adjust_learning_rate(optimizer, epoch, args):
    lr = args.lr
    if epoch >= 30:
        lr = args.lr * 0.1
    if epoch >= 36:
        lr = args.lr * 0.01
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def run(steps):
    args = get_args()
    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed)
    model = SmallWideResNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay)
    cifar_x, cifar_y = make_batches(args.num_examples, pad=args.pad)
    cifar_nat_x = cifar_x.clone()
    cifar_x = cifar_x.detach() + 0.001 * torch.randn(cifar_x.shape, generator=g).detach()
    log = []
    for epoch in range(1, args.epochs + 1):
        adjust_learning_rate(optimizer, epoch, args)
        if epoch % args.epochs_reset == 0:
            cifar_x = cifar_nat_x.clone()
            cifar_x = cifar_x.detach() + 0.001 * torch.randn(cifar_x.shape, generator=g).detach()
        cifar_x = train(args, model, cifar_nat_x, cifar_x, cifar_y, optimizer, epoch, steps, g, log)
    return {'model': model, 'cifar_x': cifar_x, 'log': log}


if __name__ == "__main__":
    run(10)
