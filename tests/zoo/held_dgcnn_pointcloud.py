# Source: https://github.com/WangYueFt/dgcnn/blob/master/pytorch/main.py
# Shape: To avoid a host sync per batch, the epoch loss is collected as a list of `loss * batch_size` tensors that are only summed at the end of the epoch; each entry is still attached, so the list keeps every batch's EdgeConv graph alive for the whole epoch.
# Verdict: leak
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import CosineAnnealingLR


# ------------------------------------------------------------------ model.py
def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = torch.sum(x ** 2, dim=1, keepdim=True)
    pairwise_distance = -xx - inner - xx.transpose(2, 1)
    return pairwise_distance.topk(k=k, dim=-1)[1]   # (batch_size, num_points, k)


def get_graph_feature(x, k=20, idx=None):
    batch_size, num_dims, num_points = x.size()
    x = x.view(batch_size, -1, num_points)
    if idx is None:
        idx = knn(x, k=k)
    idx_base = torch.arange(0, batch_size).view(-1, 1, 1) * num_points
    idx = (idx + idx_base).view(-1)
    x = x.transpose(2, 1).contiguous()
    feature = x.view(batch_size * num_points, -1)[idx, :].view(batch_size, num_points, k, num_dims)
    x = x.view(batch_size, num_points, 1, num_dims).repeat(1, 1, k, 1)
    return torch.cat((feature - x, x), dim=3).permute(0, 3, 1, 2).contiguous()


class DGCNN(nn.Module):
    def __init__(self, args, output_channels=5):
        super(DGCNN, self).__init__()
        self.args = args
        self.k = args.k
        self.conv1 = nn.Sequential(nn.Conv2d(6, 16, kernel_size=1, bias=False), nn.BatchNorm2d(16),
                                   nn.LeakyReLU(negative_slope=0.2))
        self.conv2 = nn.Sequential(nn.Conv2d(16 * 2, 16, kernel_size=1, bias=False), nn.BatchNorm2d(16),
                                   nn.LeakyReLU(negative_slope=0.2))
        self.conv5 = nn.Sequential(nn.Conv1d(32, args.emb_dims, kernel_size=1, bias=False),
                                   nn.BatchNorm1d(args.emb_dims), nn.LeakyReLU(negative_slope=0.2))
        self.linear1 = nn.Linear(args.emb_dims * 2, 32, bias=False)
        self.bn6 = nn.BatchNorm1d(32)
        self.dp1 = nn.Dropout(p=args.dropout)
        self.linear3 = nn.Linear(32, output_channels)

    def forward(self, x):
        batch_size = x.size(0)
        x = get_graph_feature(x, k=self.k)
        x1 = self.conv1(x).max(dim=-1, keepdim=False)[0]
        x = get_graph_feature(x1, k=self.k)
        x2 = self.conv2(x).max(dim=-1, keepdim=False)[0]
        x = self.conv5(torch.cat((x1, x2), dim=1))
        x1 = F.adaptive_max_pool1d(x, 1).view(batch_size, -1)
        x2 = F.adaptive_avg_pool1d(x, 1).view(batch_size, -1)
        x = torch.cat((x1, x2), 1)
        x = self.dp1(F.leaky_relu(self.bn6(self.linear1(x)), negative_slope=0.2))
        return self.linear3(x)


# ------------------------------------------------------------------ util.py
def cal_loss(pred, gold, smoothing=True):
    ''' Calculate cross entropy loss, apply label smoothing if needed. '''
    gold = gold.contiguous().view(-1)
    if smoothing:
        eps = 0.2
        n_class = pred.size(1)
        one_hot = torch.zeros_like(pred).scatter(1, gold.view(-1, 1), 1)
        one_hot = one_hot * (1 - eps) + (1 - one_hot) * eps / (n_class - 1)
        log_prb = F.log_softmax(pred, dim=1)
        loss = -(one_hot * log_prb).sum(dim=1).mean()
    else:
        loss = F.cross_entropy(pred, gold, reduction='mean')
    return loss


class IOStream():
    def __init__(self):
        self.lines = []

    def cprint(self, text):
        self.lines.append(text)


def accuracy_score(y_true, y_pred):
    return (y_true == y_pred).float().mean().item()


def balanced_accuracy_score(y_true, y_pred):
    accs = [(y_pred[y_true == c] == c).float().mean().item() for c in torch.unique(y_true)]
    return sum(accs) / len(accs)


# ------------------------------------------------------------------ data.py (synthetic ModelNet-like clouds)
def make_batches(n_batches=6, batch_size=4, num_points=64, num_classes=5, seed=1):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        label = torch.randint(0, num_classes, (batch_size, 1), generator=g)
        pts = torch.randn(batch_size, num_points, 3, generator=g)
        scale = 0.5 + label.float().view(-1, 1, 1) * torch.tensor([0.3, 0.1, 0.2])
        batches.append((pts * scale, label))
    return batches


# ------------------------------------------------------------------ main.py
def train(args, io, steps):
    train_loader = make_batches(args.train_batches, args.batch_size, args.num_points)
    test_loader = make_batches(2, args.test_batch_size, args.num_points, seed=7)
    device = torch.device("cpu")
    model = DGCNN(args).to(device)
    opt = optim.SGD(model.parameters(), lr=args.lr * 100, momentum=args.momentum, weight_decay=1e-4)
    scheduler = CosineAnnealingLR(opt, args.epochs, eta_min=args.lr)
    criterion = cal_loss

    history = []
    for epoch in range(args.epochs):
        ####################
        # Train
        ####################
        count = 0.0
        model.train()
        batch_losses = []
        train_pred = []
        train_true = []
        for it in range(steps):
            data, label = train_loader[it % len(train_loader)]
            data, label = data.to(device), label.to(device).squeeze()
            data = data.permute(0, 2, 1)
            batch_size = data.size()[0]
            opt.zero_grad()
            logits = model(data)
            loss = criterion(logits, label)
            loss.backward()
            opt.step()
            preds = logits.max(dim=1)[1]
            count += batch_size
            batch_losses.append(loss * batch_size)  # TLK102
            train_true.append(label.cpu())
            train_pred.append(preds.detach().cpu())
        scheduler.step()
        train_loss = torch.stack(batch_losses).sum().item()
        train_true = torch.cat(train_true)
        train_pred = torch.cat(train_pred)
        outstr = 'Train %d, loss: %.6f, train acc: %.6f, train avg acc: %.6f' % (
            epoch, train_loss * 1.0 / count, accuracy_score(train_true, train_pred),
            balanced_accuracy_score(train_true, train_pred))
        io.cprint(outstr)

        ####################
        # Test
        ####################
        test_loss = 0.0
        count = 0.0
        model.eval()
        test_pred = []
        test_true = []
        for data, label in test_loader:
            data, label = data.to(device), label.to(device).squeeze()
            data = data.permute(0, 2, 1)
            batch_size = data.size()[0]
            logits = model(data)
            loss = criterion(logits, label)
            preds = logits.max(dim=1)[1]
            count += batch_size
            test_loss += loss.item() * batch_size
            test_true.append(label.cpu())
            test_pred.append(preds.detach().cpu())
        test_true = torch.cat(test_true)
        test_pred = torch.cat(test_pred)
        io.cprint('Test %d, loss: %.6f, test acc: %.6f' % (epoch, test_loss * 1.0 / count,
                                                           accuracy_score(test_true, test_pred)))
        history.append({'epoch': epoch, 'batch_losses': batch_losses, 'train_pred': train_pred})
    return model, history


def run(steps):
    parser = argparse.ArgumentParser(description='Point Cloud Recognition')
    parser.add_argument('--batch_size', type=int, default=4)
    parser.add_argument('--test_batch_size', type=int, default=4)
    parser.add_argument('--train_batches', type=int, default=6)
    parser.add_argument('--epochs', type=int, default=1)
    parser.add_argument('--lr', type=float, default=0.001)
    parser.add_argument('--momentum', type=float, default=0.9)
    parser.add_argument('--num_points', type=int, default=64)
    parser.add_argument('--dropout', type=float, default=0.5)
    parser.add_argument('--emb_dims', type=int, default=32)
    parser.add_argument('--k', type=int, default=8)
    args = parser.parse_args([])
    torch.manual_seed(1)
    io = IOStream()
    model, history = train(args, io, steps)
    return {'model': model, 'history': history, 'io': io}


if __name__ == "__main__":
    run(10)
