# Source: https://github.com/open-mmlab/mmdetection/blob/01280981efe0f94a3f3087c5c0348a6ad9cc739c/mmdet/models/detectors/base.py
# Shape: _parse_losses sums the loss dict into the total but converts every log_vars entry with .item(), so the runner's LogBuffer history only holds floats; runner.outputs keeps just the current iteration's loss and is overwritten each step.
# Verdict: clean
from collections import OrderedDict

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class LogBuffer:
    def __init__(self):
        self.val_history = OrderedDict()
        self.n_history = OrderedDict()
        self.output = OrderedDict()
        self.ready = False

    def clear_output(self):
        self.output.clear()
        self.ready = False

    def update(self, vars, count=1):
        assert isinstance(vars, dict)
        for key, var in vars.items():
            if key not in self.val_history:
                self.val_history[key] = []
                self.n_history[key] = []
            self.val_history[key].append(var)
            self.n_history[key].append(count)

    def average(self, n=0):
        assert n >= 0
        for key in self.val_history:
            values = self.val_history[key][-n:]
            nums = self.n_history[key][-n:]
            self.output[key] = sum(v * c for v, c in zip(values, nums)) / sum(nums)
        self.ready = True


class TinyTwoStageDetector(nn.Module):
    def __init__(self, num_classes=5, width=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.ReLU(), nn.Conv2d(width, width, 3, 2, 1), nn.ReLU())
        self.rpn_cls = nn.Conv2d(width, 3, 1)
        self.rpn_reg = nn.Conv2d(width, 12, 1)
        self.roi_head = nn.Linear(width, num_classes + 1)
        self.bbox_reg = nn.Linear(width, 4)

    def forward_train(self, img, gt_labels, gt_bboxes):
        feat = self.backbone(img)
        rpn_obj = self.rpn_cls(feat)
        rpn_box = self.rpn_reg(feat)
        pooled = F.adaptive_avg_pool2d(feat, 1).flatten(1)
        losses = dict()
        losses['loss_rpn_cls'] = [F.binary_cross_entropy_with_logits(rpn_obj, torch.zeros_like(rpn_obj))]
        losses['loss_rpn_bbox'] = [rpn_box.abs().mean()]
        losses['loss_cls'] = F.cross_entropy(self.roi_head(pooled), gt_labels)
        losses['acc'] = (self.roi_head(pooled).argmax(1) == gt_labels).float().mean() * 100
        losses['loss_bbox'] = F.smooth_l1_loss(self.bbox_reg(pooled), gt_bboxes)
        return losses

    def forward(self, img, gt_labels, gt_bboxes, return_loss=True):
        return self.forward_train(img, gt_labels, gt_bboxes)

    def _parse_losses(self, losses):
        log_vars = OrderedDict()
        for loss_name, loss_value in losses.items():
            if isinstance(loss_value, torch.Tensor):
                log_vars[loss_name] = loss_value.mean()
            elif isinstance(loss_value, list):
                log_vars[loss_name] = sum(_loss.mean() for _loss in loss_value)
            else:
                raise TypeError(f'{loss_name} is not a tensor or list of tensors')

        loss = sum(_value for _key, _value in log_vars.items() if 'loss' in _key)

        log_vars['loss'] = loss
        for loss_name, loss_value in log_vars.items():
            if dist.is_available() and dist.is_initialized():
                loss_value = loss_value.data.clone()
                dist.all_reduce(loss_value.div_(dist.get_world_size()))
            log_vars[loss_name] = loss_value.item()
        return loss, log_vars

    def train_step(self, data, optimizer):
        losses = self(**data)
        loss, log_vars = self._parse_losses(losses)
        return dict(loss=loss, log_vars=log_vars, num_samples=len(data['img']))


class OptimizerHook:
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs['loss'].backward()
        if self.grad_clip is not None:
            nn.utils.clip_grad_norm_(runner.model.parameters(), **self.grad_clip)
        runner.optimizer.step()


class TextLoggerHook:
    def __init__(self, interval=10):
        self.interval = interval
        self.lines = []

    def after_train_iter(self, runner):
        if (runner.iter + 1) % self.interval == 0:
            runner.log_buffer.average(self.interval)
            self.lines.append(', '.join(f'{k}: {v:.4f}' for k, v in runner.log_buffer.output.items()))
            runner.log_buffer.clear_output()


class CocoMini:
    def __init__(self, size=128, num_classes=5):
        g = torch.Generator().manual_seed(8)
        self.img = torch.randn(size, 3, 32, 32, generator=g)
        self.gt_labels = torch.randint(0, num_classes + 1, (size,), generator=g)
        self.gt_bboxes = torch.rand(size, 4, generator=g)

    def collate(self, idx):
        return dict(img=self.img[idx], gt_labels=self.gt_labels[idx], gt_bboxes=self.gt_bboxes[idx])


class EpochBasedRunner:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.log_buffer = LogBuffer()
        self.hooks = [OptimizerHook(grad_clip=dict(max_norm=35, norm_type=2)), TextLoggerHook()]
        self.iter = 0
        self.outputs = None

    def call_hook(self, fn_name):
        for hook in self.hooks:
            getattr(hook, fn_name)(self)

    def train(self, data_loader):
        self.model.train()
        for data_batch in data_loader:
            outputs = self.model.train_step(data_batch, self.optimizer)
            if 'log_vars' in outputs:
                self.log_buffer.update(outputs['log_vars'], outputs['num_samples'])
            self.outputs = outputs
            self.call_hook('after_train_iter')
            self.iter += 1


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 120, (n,))]


def run(batches):
    torch.manual_seed(0)
    dataset = CocoMini()
    model = TinyTwoStageDetector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    runner = EpochBasedRunner(model, optimizer)
    loader = (dataset.collate(slice(s, s + 8)) for s in batches)
    runner.train(loader)
    return runner.log_buffer
