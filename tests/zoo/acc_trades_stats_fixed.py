# Source: https://github.com/yaodongyu/TRADES/blob/0195ed43f8f4d1526b9dbf890e25bed7987afccf/trades.py
# Shape: fixed twin - the parts are summed as Python floats (.item()) and the backward no longer retains the graph; the PGD inner autograd.grad, the x_adv.detach() chain and the no_grad evaluation are look-alikes.
# Verdict: clean
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Args:
    batch_size = 64
    lr = 0.01
    momentum = 0.9
    epsilon = 0.3
    num_steps = 5
    step_size = 0.1
    beta = 1.0
    log_interval = 5


args = Args()


class SmallCNN(nn.Module):
    def __init__(self, drop=0.5):
        super(SmallCNN, self).__init__()
        self.num_channels = 1
        self.num_labels = 10
        activ = nn.ReLU(True)
        self.feature_extractor = nn.Sequential(
            nn.Conv2d(self.num_channels, 16, 3), activ,
            nn.Conv2d(16, 16, 3), activ,
            nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 32, 3), activ,
            nn.MaxPool2d(2, 2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(32 * 2 * 2, 100), activ,
            nn.Dropout(drop),
            nn.Linear(100, self.num_labels),
        )

    def forward(self, input):
        features = self.feature_extractor(input)
        return self.classifier(features.view(-1, 32 * 2 * 2))


def squared_l2_norm(x):
    flattened = x.view(x.unsqueeze(0).shape[0], -1)
    return (flattened ** 2).sum(1)


def trades_loss(model, x_natural, y, optimizer, step_size=0.003, epsilon=0.031, perturb_steps=10,
                beta=1.0, distance='l_inf'):
    # define KL-loss
    criterion_kl = nn.KLDivLoss(reduction='sum')
    model.eval()
    batch_size = len(x_natural)
    # generate adversarial example
    x_adv = x_natural.detach() + 0.001 * torch.randn(x_natural.shape).detach()
    if distance == 'l_inf':
        for _ in range(perturb_steps):
            x_adv.requires_grad_()
            with torch.enable_grad():
                loss_kl = criterion_kl(F.log_softmax(model(x_adv), dim=1),
                                       F.softmax(model(x_natural), dim=1))
            grad = torch.autograd.grad(loss_kl, [x_adv])[0]
            x_adv = x_adv.detach() + step_size * torch.sign(grad.detach())
            x_adv = torch.min(torch.max(x_adv, x_natural - epsilon), x_natural + epsilon)
            x_adv = torch.clamp(x_adv, 0.0, 1.0)
    else:
        x_adv = torch.clamp(x_adv, 0.0, 1.0)
    model.train()

    x_adv = torch.clamp(x_adv, 0.0, 1.0).detach()
    # zero gradient
    optimizer.zero_grad()
    # calculate robust loss
    logits = model(x_natural)
    loss_natural = F.cross_entropy(logits, y)
    loss_robust = (1.0 / batch_size) * criterion_kl(F.log_softmax(model(x_adv), dim=1),
                                                    F.softmax(model(x_natural), dim=1))
    loss = loss_natural + beta * loss_robust
    return loss, {'natural': loss_natural, 'robust': loss_robust}


def make_batches(n_batches, batch_size=args.batch_size, seed=1):
    g = torch.Generator().manual_seed(seed)
    protos = torch.rand(10, 1, 18, 18, generator=g)
    for _ in range(n_batches):
        target = torch.randint(0, 10, (batch_size,), generator=g)
        data = (protos[target] + 0.2 * torch.randn(batch_size, 1, 18, 18, generator=g)).clamp(0, 1)
        yield data, target


def train(args, model, train_loader, optimizer, epoch):
    model.train()
    stats = collections.defaultdict(float)
    n = 0
    for batch_idx, (data, target) in enumerate(train_loader):
        # calculate robust loss
        loss, parts = trades_loss(model=model, x_natural=data, y=target, optimizer=optimizer,
                                  step_size=args.step_size, epsilon=args.epsilon,
                                  perturb_steps=args.num_steps, beta=args.beta)
        loss.backward()
        optimizer.step()

        for k, v in parts.items():
            stats[k] += v.item()
        n += 1

        # print progress
        if batch_idx % args.log_interval == 0:
            _ = 'Train Epoch: {} [{}]\tLoss: {:.6f}'.format(epoch, batch_idx, loss.item())
    return {k: v / max(n, 1) for k, v in stats.items()}, stats


def eval_train(model, train_loader):
    model.eval()
    train_loss = 0
    correct = 0
    total = 0
    with torch.no_grad():
        for data, target in train_loader:
            output = model(data)
            train_loss += F.cross_entropy(output, target, reduction='sum').item()
            pred = output.max(1, keepdim=True)[1]
            correct += pred.eq(target.view_as(pred)).sum().item()
            total += len(target)
    return train_loss / total, correct / total


def run(steps):
    torch.manual_seed(1)
    model = SmallCNN()
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    epoch_stats, running = train(args, model, make_batches(steps), optimizer, epoch=1)
    train_loss, train_acc = eval_train(model, make_batches(2, seed=7))
    return {"model": model, "epoch_stats": epoch_stats, "running": running,
            "eval": (train_loss, train_acc)}


if __name__ == "__main__":
    run(10)
