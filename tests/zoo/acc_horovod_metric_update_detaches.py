# Source: https://github.com/horovod/horovod/pull/641
# Shape: the fixed horovod metric detaches inside update() before the allreduce, so handing it the attached loss (here from an AMP training step with GradScaler) only ever adds plain numbers to the running sum.
# Verdict: clean
import horovod.torch as hvd
import torch
import torch.nn.functional as F


class Metric:
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val):
        # the reduced value is only ever read for logging
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


def train_epoch(epoch, backbone, optimizer, scaler, loader, use_amp=True, log_interval=50):
    backbone.train()
    loss_metric = Metric("train_loss")
    acc_metric = Metric("train_accuracy")
    for step, (images, labels) in enumerate(loader):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            logits = backbone(images)
            l = F.cross_entropy(logits, labels, label_smoothing=0.1)
        scaler.scale(l).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(backbone.parameters(), 5.0)
        scaler.step(optimizer)
        scaler.update()
        loss_metric.update(l)
        acc_metric.update((logits.argmax(1) == labels).float().mean())
        if step % log_interval == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step}: loss {loss_metric.avg.item():.4f} acc {acc_metric.avg.item():.3f}")
    return loss_metric.avg.item()


def fit(backbone, loader, epochs, lr=0.1, use_amp=True):
    optimizer = torch.optim.SGD(backbone.parameters(), lr=lr * hvd.size(), momentum=0.9, weight_decay=5e-5)
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    history = []
    for epoch in range(epochs):
        history.append(train_epoch(epoch, backbone, optimizer, scaler, loader, use_amp))
    return history
