#!/usr/bin/env python3
""" ImageNet-style Training Script (minimal, CPU, synthetic data)

A stripped-down version of the timm training script: model factory, label
smoothing loss, optimizer factory, model EMA, AverageMeters and a summary.
"""
# Modelled on: https://github.com/huggingface/pytorch-image-models/blob/main/train.py
import argparse
import logging
import time
from collections import OrderedDict
from contextlib import suppress

import torch
import torch.nn as nn

from timm_lite import utils
from timm_lite.data import create_loader
from timm_lite.loss import LabelSmoothingCrossEntropy
from timm_lite.models import create_model
from timm_lite.optim import create_optimizer_v2
from timm_lite.utils import NativeScaler, ModelEmaV2, FeatureStatsExtract

_logger = logging.getLogger('train')


def _default_args(**overrides):
    args = argparse.Namespace(
        model='resnet_tiny',
        num_classes=10,
        img_size=16,
        batch_size=8,
        opt='sgdw',
        lr=0.05,
        momentum=0.9,
        weight_decay=1e-4,
        smoothing=0.1,
        clip_grad=None,
        clip_mode='norm',
        amp=False,
        model_ema=True,
        model_ema_decay=0.99,
        log_feature_stats=True,
        log_interval=5,
        grad_accum_steps=1,
        seed=42,
        epochs=1,
    )
    for k, v in overrides.items():
        setattr(args, k, v)
    return args


def train_one_epoch(
        epoch,
        model,
        loader,
        optimizer,
        loss_fn,
        args,
        device=torch.device('cpu'),
        lr_scheduler=None,
        amp_autocast=suppress,
        loss_scaler=None,
        model_ema=None,
):
    second_order = hasattr(optimizer, 'is_second_order') and optimizer.is_second_order
    update_time_m = utils.AverageMeter()
    data_time_m = utils.AverageMeter()
    losses_m = utils.AverageMeter()

    model.train()

    accum_steps = args.grad_accum_steps
    num_updates = epoch * len(loader)
    last_idx = len(loader) - 1

    data_start_time = update_start_time = time.time()
    optimizer.zero_grad()
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_idx
        need_update = last_batch or (batch_idx + 1) % accum_steps == 0
        input, target = input.to(device), target.to(device)

        data_time_m.update(accum_steps * (time.time() - data_start_time))

        def _forward():
            with amp_autocast():
                output = model(input)
                _loss = loss_fn(output, target)
            if accum_steps > 1:
                _loss /= accum_steps
            return _loss

        def _backward(_loss):
            if loss_scaler is not None:
                loss_scaler(
                    _loss,
                    optimizer,
                    clip_grad=args.clip_grad,
                    clip_mode=args.clip_mode,
                    parameters=model.parameters(),
                    create_graph=second_order,
                    need_update=need_update,
                )
            else:
                _loss.backward(create_graph=True)  # expect: TLK302
                if need_update:
                    if args.clip_grad is not None:
                        utils.dispatch_clip_grad(model.parameters(), value=args.clip_grad, mode=args.clip_mode)
                    optimizer.step()

        loss = _forward()
        _backward(loss)

        losses_m.update(loss * accum_steps, input.size(0))  # expect: TLK101

        if not need_update:
            data_start_time = time.time()
            continue

        num_updates += 1
        optimizer.zero_grad()
        if model_ema is not None:
            model_ema.update(model)

        time_now = time.time()
        update_time_m.update(time.time() - update_start_time)
        update_start_time = time_now

        if batch_idx % args.log_interval == 0 or last_batch:
            lrl = [param_group['lr'] for param_group in optimizer.param_groups]
            lr = sum(lrl) / len(lrl)
            _logger.info(
                f'Train: {epoch} [{batch_idx:>4d}/{last_idx}]  '
                f'Loss: {losses_m.val:#.3g} ({losses_m.avg:#.3g})  '
                f'LR: {lr:.3e}  Data: {data_time_m.val:.3f} ({data_time_m.avg:.3f})'
            )

        if lr_scheduler is not None:
            lr_scheduler.step()

        data_start_time = time.time()

    return OrderedDict([('loss', losses_m.avg)])


def validate(model, loader, loss_fn, args, device=torch.device('cpu'), amp_autocast=suppress, log_suffix=''):
    batch_time_m = utils.AverageMeter()
    losses_m = utils.AverageMeter()
    top1_m = utils.AverageMeter()
    top5_m = utils.AverageMeter()

    model.eval()
    end = time.time()
    last_idx = len(loader) - 1
    with torch.no_grad():
        for batch_idx, (input, target) in enumerate(loader):
            input, target = input.to(device), target.to(device)
            with amp_autocast():
                output = model(input)
                loss = loss_fn(output, target)
            acc1, acc5 = utils.accuracy(output, target, topk=(1, 5))
            reduced_loss = loss.data

            batch_size = output.shape[0]
            losses_m.update(reduced_loss.item(), batch_size)
            top1_m.update(acc1.item(), batch_size)
            top5_m.update(acc5.item(), batch_size)
            batch_time_m.update(time.time() - end)
            end = time.time()
            if batch_idx == last_idx:
                _logger.info(
                    f'Test{log_suffix}: [{batch_idx:>4d}/{last_idx}]  '
                    f'Loss: {losses_m.val:>7.3f} ({losses_m.avg:>6.3f})  '
                    f'Acc@1: {top1_m.val:>7.3f} ({top1_m.avg:>7.3f})'
                )

    return OrderedDict([('loss', losses_m.avg), ('top1', top1_m.avg), ('top5', top5_m.avg)])


def main(steps=10, **overrides):
    args = _default_args(**overrides)
    utils.random_seed(args.seed, 0)
    device = torch.device('cpu')

    model = create_model(args.model, num_classes=args.num_classes)
    model.to(device)

    optimizer = create_optimizer_v2(
        model, opt=args.opt, lr=args.lr, weight_decay=args.weight_decay, momentum=args.momentum)

    amp_autocast = suppress
    loss_scaler = None
    if args.amp:
        amp_autocast = torch.autocast
        loss_scaler = NativeScaler(device='cpu', enabled=True)

    model_ema = None
    if args.model_ema:
        model_ema = ModelEmaV2(model, decay=args.model_ema_decay)

    feature_stats = None
    if args.log_feature_stats:
        feature_stats = FeatureStatsExtract(model, names=('layer1', 'layer2'))

    loader_train = create_loader(steps, batch_size=args.batch_size, img_size=args.img_size,
                                 num_classes=args.num_classes, seed=args.seed)
    loader_eval = create_loader(2, batch_size=args.batch_size, img_size=args.img_size,
                                num_classes=args.num_classes, seed=args.seed + 1)

    train_loss_fn = LabelSmoothingCrossEntropy(smoothing=args.smoothing)
    validate_loss_fn = nn.CrossEntropyLoss()

    summary_rows = []
    eval_metrics = None
    for epoch in range(args.epochs):
        train_metrics = train_one_epoch(
            epoch, model, loader_train, optimizer, train_loss_fn, args,
            device=device, amp_autocast=amp_autocast, loss_scaler=loss_scaler, model_ema=model_ema)
        eval_metrics = validate(model, loader_eval, validate_loss_fn, args, device=device)
        if model_ema is not None:
            ema_eval_metrics = validate(model_ema.module, loader_eval, validate_loss_fn, args,
                                        device=device, log_suffix=' (EMA)')
            eval_metrics = ema_eval_metrics
        lrs = [g['lr'] for g in optimizer.param_groups]
        utils.update_summary(epoch, train_metrics, eval_metrics, summary_rows, lr=sum(lrs) / len(lrs))

    return dict(
        model=model,
        model_ema=model_ema,
        optimizer=optimizer,
        feature_stats=feature_stats,
        summary=summary_rows,
        eval_metrics=eval_metrics,
    )


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO)
    out = main(20)
    print(out['summary'])
