# Source: https://stackoverflow.com/questions/47587122
# Shape: Samples are forwarded one by one and only the selected ones are summed and backwarded in chunks (that part is fine), but the chunk loss tensor is handed to an AverageMeter whose update() does self.sum += val * n, so every chunk's graph is chained into the meter and kept for the whole run.
# Verdict: leak
import io

import torch
import torch.nn as nn
import torch.nn.functional as F


class Opts:
    num_classes = 4
    in_dim = 20
    batch_size = 16
    chunk = 8
    hard_threshold = 0.97
    lr = 0.01
    print_freq = 5


def make_batches(n_batches=6, opts=Opts, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = 2.0 * torch.randn(opts.num_classes, opts.in_dim, generator=g)
    batches = []
    for _ in range(n_batches):
        target = torch.randint(0, opts.num_classes, (opts.batch_size,), generator=g)
        data = centers[target] + 3.0 * torch.randn(opts.batch_size, opts.in_dim, generator=g)
        batches.append((data, target))
    return batches


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self, name):
        self.name = name
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

    def __str__(self):
        return f"{self.name} {float(self.val):.4f} ({float(self.avg):.4f})"


class MLP(nn.Module):
    def __init__(self, opts):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(opts.in_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.cls = nn.Linear(64, opts.num_classes)

    def forward(self, x):
        return self.cls(self.body(x))


def some_condition(out, threshold):
    # online hard example mining: only samples the model is not yet confident about
    return F.softmax(out.detach(), dim=1).max().item() < threshold


def train_one_batch(model, optimizer, criterion, data, target, opts, meters):
    optimizer.zero_grad()
    total_loss = 0
    loss_count_local = 0
    for i in range(len(target)):
        im = data[i].unsqueeze(0)
        y = target[i:i + 1]
        out = model(im)
        if some_condition(out, opts.hard_threshold):
            loss = criterion(out, y)
        else:
            meters["skipped"].update(1)
            continue
        total_loss += loss
        loss_count_local += 1
        if loss_count_local == opts.chunk or i == (len(target) - 1):
            total_loss /= loss_count_local
            total_loss.backward()
            meters["loss"].update(total_loss, loss_count_local)  # TLK101
            total_loss = 0
            loss_count_local = 0
    if loss_count_local > 0:
        total_loss /= loss_count_local
        total_loss.backward()
        meters["loss"].update(total_loss.item(), loss_count_local)
    optimizer.step()


@torch.no_grad()
def validate(model, batches):
    model.eval()
    correct = total = 0
    for data, target in batches:
        correct += (model(data).argmax(1) == target).sum().item()
        total += target.numel()
    model.train()
    return correct / total


def run(steps):
    torch.manual_seed(0)
    opts = Opts()
    train_batches = make_batches(6, opts, seed=0)
    val_batches = make_batches(2, opts, seed=1)
    model = MLP(opts)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=opts.lr, momentum=0.9)
    meters = {"loss": AverageMeter("Loss"), "skipped": AverageMeter("Skipped")}
    acc_history, best_acc, best_state = [], 0.0, None
    for step in range(steps):
        data, target = train_batches[step % len(train_batches)]
        train_one_batch(model, optimizer, criterion, data, target, opts, meters)
        if (step + 1) % opts.print_freq == 0:
            acc = validate(model, val_batches)
            acc_history.append(acc)
            if acc >= best_acc:
                best_acc = acc
                buf = io.BytesIO()
                torch.save(model.state_dict(), buf)
                best_state = buf.getvalue()
    return {"model": model, "meters": meters, "acc_history": acc_history, "best_acc": best_acc}


if __name__ == "__main__":
    run(10)
