# Source: https://github.com/yanx27/Pointnet_Pointnet2_pytorch/blob/master/train_classification.py
# Shape: get_loss returns (total_loss, terms) and the trainer's on_batch_end hook appends every term tensor to self.loss_history; the nll / mat_diff / entropy terms are still attached, so each batch's graph (and the saved softmax of the un-backwarded entropy diagnostic) lives as long as the history.
# Verdict: leak
"""PointNet classification on ModelNet-like clouds, written around a small
hook-based trainer: BaseTrainer.fit() drives train_step()/compute_loss()/
on_batch_end(), PointNetClsTrainer overrides them.
"""
import math
from collections import defaultdict
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

args = SimpleNamespace(num_point=64, num_category=40, batch_size=16, learning_rate=1e-3,
                       decay_rate=1e-4, log_every=10)


# --------------------------------------------------------------------------
# models/pointnet_utils.py
# --------------------------------------------------------------------------
class STNkd(nn.Module):
    def __init__(self, k=16):
        super(STNkd, self).__init__()
        self.conv1 = nn.Conv1d(k, 32, 1)
        self.conv2 = nn.Conv1d(32, 64, 1)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, k * k)
        self.k = k

    def forward(self, x):
        batchsize = x.size()[0]
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = torch.max(x, 2, keepdim=True)[0].view(-1, 64)
        x = self.fc2(F.relu(self.fc1(x)))
        iden = torch.eye(self.k).flatten().view(1, self.k * self.k).repeat(batchsize, 1)
        x = x + iden
        return x.view(-1, self.k, self.k)


class PointNetEncoder(nn.Module):
    def __init__(self, global_feat=True, feature_transform=True, channel=3):
        super(PointNetEncoder, self).__init__()
        self.conv1 = nn.Conv1d(channel, 16, 1)
        self.conv2 = nn.Conv1d(16, 32, 1)
        self.conv3 = nn.Conv1d(32, 64, 1)
        self.bn1 = nn.BatchNorm1d(16)
        self.bn2 = nn.BatchNorm1d(32)
        self.bn3 = nn.BatchNorm1d(64)
        self.global_feat = global_feat
        self.feature_transform = feature_transform
        if self.feature_transform:
            self.fstn = STNkd(k=16)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        if self.feature_transform:
            trans_feat = self.fstn(x)
            x = torch.bmm(x.transpose(2, 1), trans_feat).transpose(2, 1)
        else:
            trans_feat = None
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2, keepdim=True)[0].view(-1, 64)
        return x, trans_feat


def feature_transform_reguliarzer(trans):
    d = trans.size()[1]
    I = torch.eye(d)[None, :, :]
    return torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - I, dim=(1, 2)))


# --------------------------------------------------------------------------
# models/pointnet_cls.py
# --------------------------------------------------------------------------
class get_model(nn.Module):
    def __init__(self, k=40, normal_channel=False):
        super(get_model, self).__init__()
        channel = 6 if normal_channel else 3
        self.feat = PointNetEncoder(global_feat=True, feature_transform=True, channel=channel)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, k)
        self.dropout = nn.Dropout(p=0.4)
        self.bn1 = nn.BatchNorm1d(32)

    def forward(self, x):
        x, trans_feat = self.feat(x)
        x = F.relu(self.bn1(self.dropout(self.fc1(x))))
        x = F.log_softmax(self.fc2(x), dim=1)
        return x, trans_feat


class get_loss(nn.Module):
    """Returns the scalar to backward and a dict of terms for logging."""

    def __init__(self, mat_diff_loss_scale=0.001):
        super(get_loss, self).__init__()
        self.mat_diff_loss_scale = mat_diff_loss_scale

    def forward(self, pred, target, trans_feat):
        loss = F.nll_loss(pred, target)
        mat_diff_loss = feature_transform_reguliarzer(trans_feat)
        total_loss = loss + mat_diff_loss * self.mat_diff_loss_scale
        entropy = -(pred.exp() * pred).sum(dim=1).mean()  # diagnostic only
        terms = {"nll": loss, "mat_diff": mat_diff_loss, "entropy": entropy}
        return total_loss, terms


# --------------------------------------------------------------------------
# provider.py (torch port of the numpy augmentations)
# --------------------------------------------------------------------------
def random_point_dropout(pc, max_dropout_ratio=0.875, g=None):
    for b in range(pc.shape[0]):
        dropout_ratio = float(torch.rand(1, generator=g)) * max_dropout_ratio
        drop_idx = (torch.rand(pc.shape[1], generator=g) <= dropout_ratio).nonzero().flatten()
        if len(drop_idx) > 0:
            pc[b, drop_idx, :] = pc[b, 0, :].clone()
    return pc


def random_scale_point_cloud(batch_data, scale_low=0.8, scale_high=1.25, g=None):
    scales = torch.rand(batch_data.shape[0], 1, 1, generator=g) * (scale_high - scale_low) + scale_low
    return batch_data * scales


def shift_point_cloud(batch_data, shift_range=0.1, g=None):
    shifts = (torch.rand(batch_data.shape[0], 1, 3, generator=g) * 2 - 1) * shift_range
    return batch_data + shifts


def make_batches(n_batches, batch_size=16, num_point=64, num_category=40, seed=0):
    """Generator standing in for ModelNetDataLoader: one blob shape per class."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batches):
        target = torch.randint(0, num_category, (batch_size,), generator=g)
        theta = torch.rand(batch_size, num_point, generator=g) * 2 * math.pi
        z = torch.rand(batch_size, num_point, generator=g) * 2 - 1
        r = 0.5 + 0.05 * target.float()[:, None]
        points = torch.stack([r * torch.cos(theta), r * torch.sin(theta), z * (1 + target.float()[:, None] / 20)], -1)
        points = points + 0.01 * torch.randn(points.shape, generator=g)
        yield points, target


# --------------------------------------------------------------------------
# trainer
# --------------------------------------------------------------------------
class BaseTrainer(object):
    def __init__(self, model, criterion, optimizer, scheduler=None):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.global_step = 0

    def compute_loss(self, outputs, batch):
        raise NotImplementedError

    def train_step(self, batch):
        self.optimizer.zero_grad()
        outputs = self.model(self.preprocess(batch))
        loss, logs = self.compute_loss(outputs, batch)
        loss.backward()
        self.optimizer.step()
        return logs

    def preprocess(self, batch):
        return batch

    def on_batch_end(self, step, logs):
        pass

    def on_epoch_end(self, epoch):
        pass

    def fit(self, loader, epochs=1):
        for epoch in range(epochs):
            self.model.train()
            for batch in loader:
                logs = self.train_step(batch)
                self.global_step += 1
                self.on_batch_end(self.global_step, logs)
            if self.scheduler is not None:
                self.scheduler.step()
            self.on_epoch_end(epoch)
        return self


class PointNetClsTrainer(BaseTrainer):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.g = torch.Generator().manual_seed(1)
        self.mean_correct = []
        self.loss_history = defaultdict(list)

    def preprocess(self, batch):
        points, _ = batch
        points = random_point_dropout(points.clone(), g=self.g)
        points[:, :, 0:3] = random_scale_point_cloud(points[:, :, 0:3], g=self.g)
        points[:, :, 0:3] = shift_point_cloud(points[:, :, 0:3], g=self.g)
        return points.transpose(2, 1)

    def compute_loss(self, outputs, batch):
        pred, trans_feat = outputs
        _, target = batch
        loss, terms = self.criterion(pred, target.long(), trans_feat)
        pred_choice = pred.data.max(1)[1]
        correct = pred_choice.eq(target.long().data).cpu().sum()
        self.mean_correct.append(correct.item() / float(target.size()[0]))
        return loss, terms

    def on_batch_end(self, step, logs):
        for name, value in logs.items():
            self.loss_history[name].append(value)  # TLK102
        if step % args.log_every == 0:
            print("step %d  " % step + "  ".join(
                "%s %.4f" % (k, float(v[-1])) for k, v in self.loss_history.items()))

    def on_epoch_end(self, epoch):
        train_instance_acc = sum(self.mean_correct) / max(len(self.mean_correct), 1)
        print("Train Instance Accuracy: %f" % train_instance_acc)


@torch.no_grad()
def test(model, loader, num_class=40):
    model.eval()
    class_acc = torch.zeros(num_class, 3)
    mean_correct = []
    for points, target in loader:
        pred, _ = model(points.transpose(2, 1))
        pred_choice = pred.max(1)[1]
        for cat in torch.unique(target):
            classacc = pred_choice[target == cat].eq(target[target == cat].long()).sum()
            class_acc[cat, 0] += classacc.item() / float(points[target == cat].size()[0])
            class_acc[cat, 1] += 1
        mean_correct.append(pred_choice.eq(target.long()).sum().item() / float(points.size()[0]))
    model.train()
    return sum(mean_correct) / len(mean_correct)


def run(steps):
    torch.manual_seed(0)
    classifier = get_model(args.num_category)
    criterion = get_loss()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=args.learning_rate,
                                 betas=(0.9, 0.999), eps=1e-08, weight_decay=args.decay_rate)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)
    trainer = PointNetClsTrainer(classifier, criterion, optimizer, scheduler)
    trainer.fit(make_batches(steps, args.batch_size, args.num_point, args.num_category))
    instance_acc = test(classifier, make_batches(2, 8, args.num_point, args.num_category, seed=5))
    return {"trainer": trainer, "instance_acc": instance_acc}


if __name__ == "__main__":
    run(10)
