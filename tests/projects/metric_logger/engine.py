# A DETR-style training epoch (engine.py of facebookresearch/detr), reduced: the criterion
# returns a dict of weighted loss terms; the epoch logs them through misc.MetricLogger.
import torch

from misc import MetricLogger


def train_one_epoch(model, criterion, loader, optimizer, max_norm=0.1):
    model.train()
    logger = MetricLogger()
    for samples, targets in loader:
        outputs = model(samples)
        loss_dict = criterion(outputs, targets)
        losses = sum(loss_dict[k] for k in loss_dict)
        optimizer.zero_grad()
        losses.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        # Measured under torch 2.13 CPU (Linear 8-16-4, batches of 4; 1, 5, 10 batches): the
        # meters' totals and windows keep 18 -> 74 -> 144 autograd nodes (+14 per batch); 0 with
        # {k: v.item() for k, v in loss_dict.items()}, 0 from evaluate() under no_grad.
        logger.update(loss=losses.item(), **loss_dict)  # expect: TLK101 (misc.py; the window deque(maxlen=window_size), 20 by default, holds at most 20 graphs: no TLK102)
        logger.update(lr=optimizer.param_groups[0]["lr"])  # clean: a number
    return logger.summary()


@torch.no_grad()
def evaluate(model, criterion, loader):
    model.eval()
    logger = MetricLogger()
    for samples, targets in loader:
        loss_dict = criterion(model(samples), targets)
        logger.update(**loss_dict)  # clean: under no_grad
    return logger.summary()
