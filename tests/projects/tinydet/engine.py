import math
import sys
import time

import torch

import utils
from evaluator import DetectionEvaluator


def train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq, scaler=None, ema=None, hard_miner=None):
    model.train()
    metric_logger = utils.MetricLogger(delimiter="  ")
    metric_logger.add_meter("lr", utils.SmoothedValue(window_size=1, fmt="{value:.6f}"))
    header = f"Epoch: [{epoch}]"

    lr_scheduler = None
    if epoch == 0:
        warmup_factor = 1.0 / 1000
        warmup_iters = min(1000, len(data_loader) - 1)

        lr_scheduler = torch.optim.lr_scheduler.LinearLR(
            optimizer, start_factor=warmup_factor, total_iters=warmup_iters
        )

    for images, targets in metric_logger.log_every(data_loader, print_freq, header):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        with torch.autocast(device_type=device.type, enabled=scaler is not None):
            loss_dict, per_image_losses = model(images, targets)
            losses = sum(loss for loss in loss_dict.values())

        # reduce losses over all GPUs for logging purposes
        loss_dict_reduced = utils.reduce_dict(loss_dict)
        losses_reduced = sum(loss for loss in loss_dict_reduced.values())

        loss_value = losses_reduced.item()

        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            print(loss_dict_reduced)
            sys.exit(1)

        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(losses).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            losses.backward(retain_graph=True)  # expect: TLK201
            optimizer.step()

        if lr_scheduler is not None:
            lr_scheduler.step()

        if ema is not None:
            ema.update(model)

        if hard_miner is not None:
            hard_miner.update([t["image_id"] for t in targets], per_image_losses)  # known-false: TLK102 (the author marked this leak at another line)

        metric_logger.update(loss=losses_reduced, **loss_dict_reduced)  # known-false: TLK101 (the author marked this leak at another line)
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])

    return {k: meter.global_avg for k, meter in metric_logger.meters.items()}


@torch.inference_mode()
def evaluate(model, data_loader, device):
    model.eval()
    metric_logger = utils.MetricLogger(delimiter="  ")
    header = "Test:"

    evaluator = DetectionEvaluator(data_loader.dataset)

    for images, targets in metric_logger.log_every(data_loader, 100, header):
        images = list(img.to(device) for img in images)
        model_time = time.time()
        outputs = model(images)

        outputs = [{k: v.to("cpu") for k, v in t.items()} for t in outputs]
        model_time = time.time() - model_time

        res = {target["image_id"].item(): output for target, output in zip(targets, outputs)}
        evaluator_time = time.time()
        evaluator.update(res)
        evaluator_time = time.time() - evaluator_time
        metric_logger.update(model_time=model_time, evaluator_time=evaluator_time)

    print("Averaged stats:", metric_logger)
    evaluator.accumulate()
    evaluator.summarize()
    model.train()
    return evaluator
