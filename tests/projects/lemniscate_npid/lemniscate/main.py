"""Training functions of lemniscate's cifar.py / main.py (instance discrimination with a
non-parametric memory and NCE), as functions that take their configuration explicitly."""
import time

import torch

from .lib.utils import AverageMeter


def adjust_learning_rate(optimizer, epoch, args):
    """Sets the learning rate to the initial LR decayed by 10 every 40 epochs after 80"""
    lr = args.lr
    if epoch >= 80:
        lr = args.lr * (0.1 ** ((epoch - 80) // 40))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def train(epoch, net, lemniscate, criterion, optimizer, trainloader, args, device='cpu'):
    adjust_learning_rate(optimizer, epoch, args)
    train_loss = AverageMeter()
    data_time = AverageMeter()
    batch_time = AverageMeter()

    # switch to train mode
    net.train()

    end = time.time()
    optimizer.zero_grad()
    for batch_idx, (inputs, targets, indexes) in enumerate(trainloader):
        data_time.update(time.time() - end)
        inputs, targets, indexes = inputs.to(device), targets.to(device), indexes.to(device)

        features = net(inputs)
        outputs = lemniscate(features, indexes)  # known-false: TLK103 (the author marked this leak at another line)
        loss = criterion(outputs, indexes) / args.iter_size

        loss.backward()

        # measure accuracy and record loss
        train_loss.update(loss * args.iter_size, inputs.size(0))  # expect: TLK101

        if (batch_idx + 1) % args.iter_size == 0:
            # compute gradient and do SGD step
            optimizer.step()
            optimizer.zero_grad()

        # measure elapsed time
        batch_time.update(time.time() - end)
        end = time.time()

        if args.verbose and batch_idx % args.print_freq == 0:
            print('Epoch: [{}][{}/{}]'
                  'Time: {batch_time.val:.3f} ({batch_time.avg:.3f}) '
                  'Data: {data_time.val:.3f} ({data_time.avg:.3f}) '
                  'Loss: {train_loss.val:.4f} ({train_loss.avg:.4f})'.format(
                      epoch, batch_idx, len(trainloader), batch_time=batch_time,
                      data_time=data_time, train_loss=train_loss))
    return train_loss.avg
