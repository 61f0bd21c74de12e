# Source: https://github.com/CSAILVision/semantic-segmentation-pytorch/blob/08d17adf594cd8fbb5581149e1c3ac91462f6bce/train.py
# Shape: the soft-Dice metric is handed to the AverageMeter as a Python float (dice.item()), so the meter's running sum holds no graph and each Dice graph is freed when `dice` is rebound.
# Verdict: clean
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    num_class = 6
    fc_dim = 32
    batch_size_per_gpu = 2
    img_size = 24
    lr_encoder = 0.02
    lr_decoder = 0.02
    lr_pow = 0.9
    beta1 = 0.9
    weight_decay = 1e-4
    disp_iter = 5
    epoch_iters = 10
    num_epoch = 1
    running_lr_encoder = 0.02
    running_lr_decoder = 0.02
    max_iters = 10


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.initialized = False
        self.val = None
        self.avg = None
        self.sum = None
        self.count = None

    def initialize(self, val, weight):
        self.val = val
        self.avg = val
        self.sum = val * weight
        self.count = weight
        self.initialized = True

    def update(self, val, weight=1):
        if not self.initialized:
            self.initialize(val, weight)
        else:
            self.add(val, weight)

    def add(self, val, weight):
        self.val = val
        self.sum += val * weight
        self.count += weight
        self.avg = self.sum / self.count

    def value(self):
        return self.val

    def average(self):
        return self.avg


class ConvEncoder(nn.Module):
    def __init__(self, fc_dim=32):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, fc_dim, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(fc_dim)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return [F.relu(self.bn2(self.conv2(x)))]


class C1Decoder(nn.Module):
    def __init__(self, num_class=6, fc_dim=32, use_softmax=False):
        super().__init__()
        self.use_softmax = use_softmax
        self.cbr = nn.Sequential(nn.Conv2d(fc_dim, fc_dim // 2, 3, padding=1), nn.BatchNorm2d(fc_dim // 2), nn.ReLU())
        self.conv_last = nn.Conv2d(fc_dim // 2, num_class, 1)

    def forward(self, conv_out, segSize=None):
        x = self.conv_last(self.cbr(conv_out[-1]))
        x = F.interpolate(x, size=segSize, mode='bilinear', align_corners=False)
        if self.use_softmax:
            return F.softmax(x, dim=1)
        return F.log_softmax(x, dim=1)


class SegmentationModule(nn.Module):
    def __init__(self, net_enc, net_dec, crit, num_class):
        super().__init__()
        self.encoder = net_enc
        self.decoder = net_dec
        self.crit = crit
        self.num_class = num_class

    def pixel_acc(self, pred, label):
        _, preds = torch.max(pred, dim=1)
        valid = (label >= 0).long()
        acc_sum = torch.sum(valid * (preds == label).long())
        pixel_sum = torch.sum(valid)
        return acc_sum.float() / (pixel_sum.float() + 1e-10)

    def soft_dice(self, pred, label):
        prob = pred.exp()
        onehot = F.one_hot(label.clamp(min=0), self.num_class).permute(0, 3, 1, 2).float()
        inter = (prob * onehot).sum(dim=(2, 3))
        union = prob.sum(dim=(2, 3)) + onehot.sum(dim=(2, 3))
        return ((2 * inter + 1.0) / (union + 1.0)).mean()

    def forward(self, feed_dict):
        pred = self.decoder(self.encoder(feed_dict['img_data']), segSize=feed_dict['seg_label'].shape[-2:])
        loss = self.crit(pred, feed_dict['seg_label'])
        acc = self.pixel_acc(pred, feed_dict['seg_label'])
        dice = self.soft_dice(pred, feed_dict['seg_label'])
        return loss, acc, dice


def group_weight(module):
    group_decay, group_no_decay = [], []
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.modules.conv._ConvNd)):
            group_decay.append(m.weight)
            if m.bias is not None:
                group_no_decay.append(m.bias)
        elif isinstance(m, nn.modules.batchnorm._BatchNorm):
            group_no_decay.append(m.weight)
            group_no_decay.append(m.bias)
    return [dict(params=group_decay), dict(params=group_no_decay, weight_decay=.0)]


def create_optimizers(nets, cfg):
    net_encoder, net_decoder, crit = nets
    optimizer_encoder = torch.optim.SGD(group_weight(net_encoder), lr=cfg.lr_encoder,
                                        momentum=cfg.beta1, weight_decay=cfg.weight_decay)
    optimizer_decoder = torch.optim.SGD(group_weight(net_decoder), lr=cfg.lr_decoder,
                                        momentum=cfg.beta1, weight_decay=cfg.weight_decay)
    return optimizer_encoder, optimizer_decoder


def adjust_learning_rate(optimizers, cur_iter, cfg):
    scale_running_lr = ((1. - float(cur_iter) / cfg.max_iters) ** cfg.lr_pow)
    cfg.running_lr_encoder = cfg.lr_encoder * scale_running_lr
    cfg.running_lr_decoder = cfg.lr_decoder * scale_running_lr
    optimizer_encoder, optimizer_decoder = optimizers
    for param_group in optimizer_encoder.param_groups:
        param_group['lr'] = cfg.running_lr_encoder
    for param_group in optimizer_decoder.param_groups:
        param_group['lr'] = cfg.running_lr_decoder


def load_batch(seed, cfg):
    g = torch.Generator().manual_seed(seed)
    img = torch.randn(cfg.batch_size_per_gpu, 3, cfg.img_size, cfg.img_size, generator=g)
    seg = torch.randint(0, cfg.num_class, (cfg.batch_size_per_gpu, cfg.img_size, cfg.img_size), generator=g)
    seg[:, :2] = -1
    return {'img_data': img, 'seg_label': seg}


def train(segmentation_module, iterator, optimizers, history, epoch, cfg):
    batch_time = AverageMeter()
    data_time = AverageMeter()
    ave_total_loss = AverageMeter()
    ave_acc = AverageMeter()
    ave_dice = AverageMeter()

    segmentation_module.train()
    tic = time.time()
    for i, seed in enumerate(iterator):
        batch_data = load_batch(seed, cfg)
        data_time.update(time.time() - tic)
        segmentation_module.zero_grad()

        cur_iter = i + (epoch - 1) * cfg.epoch_iters
        adjust_learning_rate(optimizers, cur_iter, cfg)

        loss, acc, dice = segmentation_module(batch_data)
        loss = loss.mean()
        acc = acc.mean()

        loss.backward()
        for optimizer in optimizers:
            optimizer.step()

        batch_time.update(time.time() - tic)
        tic = time.time()

        ave_total_loss.update(loss.data.item())
        ave_acc.update(acc.data.item() * 100)
        ave_dice.update(dice.item(), weight=batch_data['img_data'].size(0))

        if i % cfg.disp_iter == 0:
            fractional_epoch = epoch - 1 + 1. * i / cfg.epoch_iters
            history['train']['epoch'].append(fractional_epoch)
            history['train']['loss'].append(loss.data.item())
            history['train']['acc'].append(acc.data.item())
    return ave_total_loss.average(), ave_dice.average()


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    cfg = Config()
    cfg.epoch_iters = len(batches)
    cfg.max_iters = cfg.epoch_iters * cfg.num_epoch + 1
    net_encoder = ConvEncoder(cfg.fc_dim)
    net_decoder = C1Decoder(cfg.num_class, cfg.fc_dim)
    crit = nn.NLLLoss(ignore_index=-1)
    segmentation_module = SegmentationModule(net_encoder, net_decoder, crit, cfg.num_class)
    optimizers = create_optimizers((net_encoder, net_decoder, crit), cfg)
    history = {'train': {'epoch': [], 'loss': [], 'acc': []}}
    avg_loss, avg_dice = train(segmentation_module, batches, optimizers, history, 1, cfg)
    return history, avg_dice
