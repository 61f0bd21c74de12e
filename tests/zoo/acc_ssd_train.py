# Source: https://github.com/amdegroot/ssd.pytorch/blob/master/train.py
# Shape: The epoch counters loc_loss/conf_loss are summed with the attached loss_l/loss_c tensors returned by MultiBoxLoss (the old `.data[0]` replaced by the tensor itself), so each iteration's localisation and confidence graphs are chained into the counters until the epoch boundary.
# Verdict: leak
import time
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

voc = {
    'num_classes': 4,
    'lr_steps': (80000, 100000, 120000),
    'max_iter': 120000,
    'feature_maps': [4, 2],
    'min_dim': 32,
    'steps': [8, 16],
    'min_sizes': [8, 16],
    'aspect_ratios': [[2], [2]],
    'variance': [0.1, 0.2],
    'name': 'VOC',
}


# ------------------------------------------------------------ layers/box_utils.py
def point_form(boxes):
    return torch.cat((boxes[:, :2] - boxes[:, 2:] / 2, boxes[:, :2] + boxes[:, 2:] / 2), 1)


def jaccard(box_a, box_b):
    max_xy = torch.min(box_a[:, None, 2:], box_b[None, :, 2:])
    min_xy = torch.max(box_a[:, None, :2], box_b[None, :, :2])
    inter = torch.clamp(max_xy - min_xy, min=0).prod(2)
    area_a = ((box_a[:, 2] - box_a[:, 0]) * (box_a[:, 3] - box_a[:, 1]))[:, None]
    area_b = ((box_b[:, 2] - box_b[:, 0]) * (box_b[:, 3] - box_b[:, 1]))[None, :]
    return inter / (area_a + area_b - inter)


def encode(matched, priors, variances):
    g_cxcy = (matched[:, :2] + matched[:, 2:]) / 2 - priors[:, :2]
    g_cxcy /= (variances[0] * priors[:, 2:])
    g_wh = (matched[:, 2:] - matched[:, :2]) / priors[:, 2:]
    g_wh = torch.log(g_wh) / variances[1]
    return torch.cat([g_cxcy, g_wh], 1)


def match(threshold, truths, priors, variances, labels, loc_t, conf_t, idx):
    overlaps = jaccard(truths, point_form(priors))
    best_prior_overlap, best_prior_idx = overlaps.max(1)
    best_truth_overlap, best_truth_idx = overlaps.max(0)
    best_truth_overlap.index_fill_(0, best_prior_idx, 2)
    for j in range(best_prior_idx.size(0)):
        best_truth_idx[best_prior_idx[j]] = j
    matches = truths[best_truth_idx]
    conf = labels[best_truth_idx] + 1
    conf[best_truth_overlap < threshold] = 0
    loc_t[idx] = encode(matches, priors, variances)
    conf_t[idx] = conf


def log_sum_exp(x):
    x_max = x.max()
    return torch.log(torch.sum(torch.exp(x - x_max), 1, keepdim=True)) + x_max


class PriorBox(object):
    def __init__(self, cfg):
        self.cfg = cfg

    def forward(self):
        mean = []
        c = self.cfg
        for k, f in enumerate(c['feature_maps']):
            for i in range(f):
                for j in range(f):
                    f_k = c['min_dim'] / c['steps'][k]
                    cx, cy = (j + 0.5) / f_k, (i + 0.5) / f_k
                    s_k = c['min_sizes'][k] / c['min_dim']
                    mean += [cx, cy, s_k, s_k]
                    for ar in c['aspect_ratios'][k]:
                        mean += [cx, cy, s_k * ar ** 0.5, s_k / ar ** 0.5]
        return torch.tensor(mean).view(-1, 4).clamp_(max=1, min=0)


# ------------------------------------------------------------ layers/modules/multibox_loss.py
class MultiBoxLoss(nn.Module):
    def __init__(self, num_classes, overlap_thresh, neg_pos, variance):
        super().__init__()
        self.num_classes = num_classes
        self.threshold = overlap_thresh
        self.negpos_ratio = neg_pos
        self.variance = variance

    def forward(self, predictions, targets):
        loc_data, conf_data, priors = predictions
        num = loc_data.size(0)
        num_priors = priors.size(0)
        loc_t = torch.zeros(num, num_priors, 4)
        conf_t = torch.zeros(num, num_priors, dtype=torch.long)
        for idx in range(num):
            match(self.threshold, targets[idx][:, :-1], priors, self.variance,
                  targets[idx][:, -1].long(), loc_t, conf_t, idx)
        pos = conf_t > 0

        # Localization Loss (Smooth L1)
        pos_idx = pos.unsqueeze(pos.dim()).expand_as(loc_data)
        loc_p = loc_data[pos_idx].view(-1, 4)
        loss_l = F.smooth_l1_loss(loc_p, loc_t[pos_idx].view(-1, 4), reduction='sum')

        # Hard negative mining (ranking only, no gradient needed)
        with torch.no_grad():
            batch_conf = conf_data.view(-1, self.num_classes)
            loss_c = log_sum_exp(batch_conf) - batch_conf.gather(1, conf_t.view(-1, 1))
            loss_c = loss_c.view(num, -1)
            loss_c[pos] = 0
            _, loss_idx = loss_c.sort(1, descending=True)
            _, idx_rank = loss_idx.sort(1)
            num_pos = pos.long().sum(1, keepdim=True)
            num_neg = torch.clamp(self.negpos_ratio * num_pos, max=pos.size(1) - 1)
            neg = idx_rank < num_neg.expand_as(idx_rank)

        # Confidence Loss Including Positive and Negative Examples
        pos_idx = pos.unsqueeze(2).expand_as(conf_data)
        neg_idx = neg.unsqueeze(2).expand_as(conf_data)
        conf_p = conf_data[(pos_idx + neg_idx).gt(0)].view(-1, self.num_classes)
        targets_weighted = conf_t[(pos + neg).gt(0)]
        loss_c = F.cross_entropy(conf_p, targets_weighted, reduction='sum')

        N = max(num_pos.sum().item(), 1)
        return loss_l / N, loss_c / N


# ------------------------------------------------------------ ssd.py
class SSD(nn.Module):
    def __init__(self, phase, size, num_classes, cfg):
        super().__init__()
        self.phase = phase
        self.num_classes = num_classes
        self.priors = PriorBox(cfg).forward()
        self.vgg = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                                 nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                                 nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2))
        self.extras = nn.Sequential(nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True))
        self.loc = nn.ModuleList([nn.Conv2d(32, 2 * 4, 3, padding=1), nn.Conv2d(32, 2 * 4, 3, padding=1)])
        self.conf = nn.ModuleList([nn.Conv2d(32, 2 * num_classes, 3, padding=1),
                                   nn.Conv2d(32, 2 * num_classes, 3, padding=1)])

    def forward(self, x):
        sources = [self.vgg(x)]
        sources.append(self.extras(sources[0]))
        loc, conf = [], []
        for (x, l, c) in zip(sources, self.loc, self.conf):
            loc.append(l(x).permute(0, 2, 3, 1).contiguous())
            conf.append(c(x).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)
        return (loc.view(loc.size(0), -1, 4), conf.view(conf.size(0), -1, self.num_classes), self.priors)


# ------------------------------------------------------------ train.py
class VisPlot(object):
    """Stand-in for the visdom line plots: keeps plain floats."""

    def __init__(self):
        self.iter_points = []
        self.epoch_points = []

    def update_vis_plot(self, iteration, loc, conf, window, epoch_size=1):
        window.append((iteration, loc / epoch_size, conf / epoch_size, (loc + conf) / epoch_size))


def adjust_learning_rate(optimizer, lr, gamma, step):
    lr = lr * (gamma ** (step))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def make_batches(n_batches=6, batch_size=4, size=32, num_classes=4, seed=0):
    torch.manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        images = torch.rand(batch_size, 3, size, size)
        targets = []
        for _ in range(batch_size):
            xy = torch.rand(2, 2) * 0.5
            wh = torch.rand(2, 2) * 0.4 + 0.1
            labels = torch.randint(0, num_classes - 1, (2, 1)).float()
            targets.append(torch.cat([xy, xy + wh, labels], 1))
        batches.append((images, targets))
    return batches


def train(args, steps):
    cfg = voc
    net = SSD('train', cfg['min_dim'], cfg['num_classes'], cfg)
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    criterion = MultiBoxLoss(cfg['num_classes'], 0.5, 3, cfg['variance'])
    vis = VisPlot()
    net.train()

    # loss counters
    loc_loss = 0
    conf_loss = 0
    epoch = 0
    step_index = 0
    dataset = make_batches()
    epoch_size = args.epoch_size
    batch_iterator = iter(dataset)

    for iteration in range(args.start_iter, args.start_iter + steps):
        if iteration != 0 and (iteration % epoch_size == 0):
            vis.update_vis_plot(epoch, float(loc_loss), float(conf_loss), vis.epoch_points, epoch_size)
            loc_loss = 0
            conf_loss = 0
            epoch += 1
        if iteration in cfg['lr_steps']:
            step_index += 1
            adjust_learning_rate(optimizer, args.lr, args.gamma, step_index)

        try:
            images, targets = next(batch_iterator)
        except StopIteration:
            batch_iterator = iter(dataset)
            images, targets = next(batch_iterator)

        t0 = time.time()
        out = net(images)
        optimizer.zero_grad()
        loss_l, loss_c = criterion(out, targets)
        loss = loss_l + loss_c
        loss.backward()
        optimizer.step()
        t1 = time.time()
        loc_loss += loss_l  # TLK101
        conf_loss += loss_c  # TLK101

        if iteration % 10 == 0:
            args.last_msg = 'timer: %.4f sec. iter %d || Loss: %.4f ||' % (t1 - t0, iteration, loss.item())
        vis.update_vis_plot(iteration, loss_l.item(), loss_c.item(), vis.iter_points)

    return {'net': net, 'loc_loss': loc_loss, 'conf_loss': conf_loss, 'vis': vis}


def run(steps):
    torch.manual_seed(0)
    args = SimpleNamespace(lr=1e-3, momentum=0.9, weight_decay=5e-4, gamma=0.1,
                           start_iter=0, epoch_size=1000)
    return train(args, steps)


if __name__ == "__main__":
    run(10)
