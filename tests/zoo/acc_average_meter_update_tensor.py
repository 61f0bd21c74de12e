# Source: https://github.com/lyq133/LIC-HPCM/issues/4
# Shape: an AverageMeter defined in the same file keeps self.sum += val * n; the loop passes the graph-attached loss tensor to meter.update, so the meter's sum chains every step's graph.
# Verdict: leak
import torch


class AverageMeter:
    """Running average of a scalar."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0.0
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def train_one_epoch(model, criterion, loader, optimizer, epoch, clip_max_norm=1.0):
    model.train()
    loss_meter = AverageMeter()
    bpp_meter = AverageMeter()
    for i, images in enumerate(loader):
        images = images.cuda()
        optimizer.zero_grad()
        out_net = model(images)
        out_criterion = criterion(out_net, images)
        out_criterion["loss"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_max_norm)
        optimizer.step()
        loss_meter.update(out_criterion["loss"], images.size(0))  # TLK101
        bpp_meter.update(out_criterion["bpp_loss"].item(), images.size(0))
        if i % 100 == 0:
            print(f"epoch {epoch} step {i} loss {float(loss_meter.avg):.4f} bpp {bpp_meter.avg:.4f}")
