# Source: https://github.com/open-mmlab/mmengine/issues/828
# Shape: fixed twin: the hook stores outputs["loss"].item(), a float, the same way MessageHub.update_scalar does.
# Verdict: clean
from collections import OrderedDict, defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class HistoryBuffer:
    def __init__(self):
        self._log_history = []

    def update(self, value, count=1):
        self._log_history.append(value)

    def mean(self, window_size=None):
        hist = self._log_history[-window_size:] if window_size else self._log_history
        return sum(hist) / max(len(hist), 1)


class MessageHub:
    _instance = None

    def __init__(self):
        self.log_scalars = defaultdict(HistoryBuffer)
        self.runtime_info = {}

    @classmethod
    def get_current_instance(cls):
        if cls._instance is None:
            cls._instance = MessageHub()
        return cls._instance

    @staticmethod
    def _get_valid_value(value):
        if isinstance(value, torch.Tensor):
            assert value.numel() == 1
            value = value.item()
        return value

    def update_scalar(self, key, value, count=1):
        self.log_scalars[key].update(self._get_valid_value(value), count)

    def update_info(self, key, value):
        self.runtime_info[key] = value


class Hook:
    priority = "NORMAL"

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        pass

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        pass

    def after_train_epoch(self, runner):
        pass


class RuntimeInfoHook(Hook):
    priority = "VERY_HIGH"

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        runner.message_hub.update_info("iter", runner.iter)
        runner.message_hub.update_scalar("train/lr", runner.optim_wrapper.get_lr())

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        if outputs is not None:
            for key, value in outputs.items():
                runner.message_hub.update_scalar(f"train/{key}", value)


class LossCurveHook(Hook):
    """User hook: keep the raw loss curve and dump it once per epoch."""

    def __init__(self, interval=1):
        self.interval = interval
        self.loss_curve = []

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        if (runner.iter + 1) % self.interval == 0:
            self.loss_curve.append(outputs["loss"].item())

    def after_train_epoch(self, runner):
        runner.message_hub.update_info("loss_curve_len", len(self.loss_curve))


class OptimWrapper:
    def __init__(self, optimizer, clip_grad=None):
        self.optimizer = optimizer
        self.clip_grad = clip_grad

    def update_params(self, loss):
        loss.backward()
        if self.clip_grad:
            torch.nn.utils.clip_grad_norm_(
                [p for g in self.optimizer.param_groups for p in g["params"]], **self.clip_grad)
        self.optimizer.step()
        self.optimizer.zero_grad()

    def get_lr(self):
        return self.optimizer.param_groups[0]["lr"]


class BaseModel(nn.Module):
    def parse_losses(self, losses):
        log_vars = []
        for loss_name, loss_value in losses.items():
            log_vars.append([loss_name, loss_value.mean()])
        loss = sum(value for key, value in log_vars if "loss" in key)
        log_vars.insert(0, ["loss", loss])
        return loss, OrderedDict(log_vars)

    def train_step(self, data, optim_wrapper):
        losses = self(*data, mode="loss")
        parsed_losses, log_vars = self.parse_losses(losses)
        optim_wrapper.update_params(parsed_losses)
        return log_vars


class TinySegmentor(BaseModel):
    def __init__(self, in_ch=3, ch=32, num_classes=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(in_ch, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
                                      nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.decode_head = nn.Conv2d(ch, num_classes, 1)
        self.auxiliary_head = nn.Conv2d(ch, num_classes, 1)

    def forward(self, inputs, data_samples, mode="tensor"):
        feat = self.backbone(inputs)
        seg_logits = self.decode_head(feat)
        if mode != "loss":
            return seg_logits
        return {"decode.loss_ce": F.cross_entropy(seg_logits, data_samples),
                "aux.loss_ce": 0.4 * F.cross_entropy(self.auxiliary_head(feat), data_samples)}


class Runner:
    def __init__(self, model, optim_wrapper, custom_hooks=()):
        self.model = model
        self.optim_wrapper = optim_wrapper
        self.message_hub = MessageHub.get_current_instance()
        self._hooks = [RuntimeInfoHook(), *custom_hooks]
        self.iter = 0

    def call_hook(self, fn_name, **kwargs):
        for hook in self._hooks:
            getattr(hook, fn_name)(self, **kwargs)

    def run_iter(self, idx, data_batch):
        self.call_hook("before_train_iter", batch_idx=idx, data_batch=data_batch)
        outputs = self.model.train_step(data_batch, optim_wrapper=self.optim_wrapper)
        self.call_hook("after_train_iter", batch_idx=idx, data_batch=data_batch, outputs=outputs)
        self.iter += 1

    def train_epoch(self, dataloader):
        self.model.train()
        for idx, data_batch in enumerate(dataloader):
            self.run_iter(idx, data_batch)
        self.call_hook("after_train_epoch")
        return self.message_hub.log_scalars["train/loss"].mean()


def make_batches(n):
    return list(range(n))


def dataloader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield torch.randn(4, 3, 16, 16, generator=g), torch.randint(0, 5, (4, 16, 16), generator=g)


def run(batches):
    torch.manual_seed(0)
    MessageHub._instance = None
    model = TinySegmentor()
    optim_wrapper = OptimWrapper(torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9),
                                 clip_grad=dict(max_norm=35, norm_type=2))
    runner = Runner(model, optim_wrapper, custom_hooks=[LossCurveHook(interval=1)])
    return runner.train_epoch(dataloader(batches))


if __name__ == "__main__":
    print(run(make_batches(4)))
