# Layout modelled on huggingface/pytorch-image-models (train.py with timm.utils): the epoch
# functions use meters and reductions re-exported by the utils package.
import torch

from utils import AverageMeter, accuracy, reduce_tensor


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, world_size):
    losses_m = AverageMeter()
    model.train()
    for batch_idx, (input, target) in enumerate(loader):
        output = model(input)
        loss = loss_fn(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        reduced_loss = reduce_tensor(loss.data, world_size)
        losses_m.update(reduced_loss.item(), input.size(0))  # clean: .item()
        if world_size > 1:
            losses_m.update(reduce_tensor(loss, world_size), input.size(0))  # expect: TLK101 (metrics.py)
    return losses_m.avg


def validate(model, loader, loss_fn):
    top1_m = AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            output = model(input)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            top1_m.update(acc1.item(), output.size(0))  # clean
    return top1_m.avg
