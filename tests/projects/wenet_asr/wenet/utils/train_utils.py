# Modelled on wenet-e2e/wenet (Apache-2.0), simplified for a CPU test; the upstream file's authors are credited there.
"""Training helpers shared by Executor (wenet/utils/train_utils.py, trimmed to torch_ddp/fp32)."""
import logging
import os
from contextlib import nullcontext
from typing import Optional

import torch
from torch.nn.utils import clip_grad_norm_

from wenet.utils.common import StepTimer, lrs_to_str, tensor_to_scalar
from wenet.utils.scheduler import WarmupLR
from wenet.utils.summary_writer import ScalarWriter


def init_optimizer_and_scheduler(configs, model):
    if configs['optim'] == 'adam':
        optimizer = torch.optim.Adam(model.parameters(),
                                     **configs['optim_conf'])
    elif configs['optim'] == 'adamw':
        optimizer = torch.optim.AdamW(model.parameters(),
                                      **configs['optim_conf'])
    else:
        raise ValueError("unknown optimizer: " + configs['optim'])
    scheduler = WarmupLR(optimizer, **configs['scheduler_conf'])
    return model, optimizer, scheduler


def init_summarywriter(configs):
    rank = int(os.environ.get('RANK', 0))
    if rank == 0:
        return ScalarWriter(configs.get('tensorboard_dir'))
    return None


def init_scaler(configs):
    if configs.get('use_amp', False) and torch.cuda.is_available():
        return torch.cuda.amp.GradScaler()
    return None


def wenet_join(group_join, info_dict):
    # single-process training never needs to join uneven inputs
    return False


def batch_forward(model, batch, scaler, info_dict, device):
    autocast = torch.autocast(device_type=device.type,
                              enabled=scaler is not None)
    with autocast:
        loss_dict = model(batch, device)
    info_dict['loss_dict'] = loss_dict
    return info_dict


def batch_backward(model, scaler, info_dict):
    accum_grad = info_dict.get('accum_grad', 1)
    loss = info_dict['loss_dict']['loss']

    scaled_loss = loss / accum_grad
    if scaler is not None:
        scaler.scale(scaled_loss).backward()
    else:
        scaled_loss.backward()

    # only the total loss is needed as a python number from here on,
    # the per-branch losses are converted when they are logged
    info_dict['loss_dict']['loss'] = tensor_to_scalar(scaled_loss)
    return info_dict


def update_parameter_and_lr(model, optimizer, scheduler, scaler, info_dict):
    accum_grad = info_dict.get('accum_grad', 1)
    clip = info_dict.get('grad_clip', 50.0)
    batch_idx = info_dict["batch_idx"]

    grad_norm = 0.0
    if (batch_idx + 1) % accum_grad == 0:
        if scaler is not None:
            scaler.unscale_(optimizer)
            grad_norm = clip_grad_norm_(model.parameters(), clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            grad_norm = clip_grad_norm_(model.parameters(), clip)
            if torch.isfinite(grad_norm):
                optimizer.step()
        optimizer.zero_grad()
        scheduler.step()

    info_dict["lrs"] = [group['lr'] for group in optimizer.param_groups]
    info_dict["grad_norm"] = tensor_to_scalar(grad_norm)
    return info_dict


def log_per_step(writer, info_dict, timer: Optional[StepTimer] = None):
    tag = info_dict["tag"]
    step = info_dict["step"]
    batch_idx = info_dict["batch_idx"]
    loss_dict = info_dict['loss_dict']
    epoch = info_dict.get('epoch', 0)
    accum_grad = info_dict.get('accum_grad', 1) if tag != "CV" else 1
    log_interval = info_dict.get('log_interval', 10)
    lrs = info_dict.get("lrs", [0.0])

    rank = int(os.environ.get('RANK', 0))
    # TRAIN Tensorboard
    if tag == "TRAIN" and rank == 0 and writer is not None:
        if (batch_idx + 1) % accum_grad == 0:
            writer.add_scalar('train/train_loss',
                              tensor_to_scalar(loss_dict['loss']) * accum_grad,
                              step)
            writer.add_scalar('train/grad_norm', info_dict['grad_norm'], step)
            for name, value in loss_dict.items():
                if name != 'loss' and value is not None:
                    writer.add_scalar('train/{}'.format(name), value, step)  # known-miss: TLK102
            # lr
            for i, lr in enumerate(lrs):
                writer.add_scalar('train/lr_{}'.format(i), lr, step)

    # TRAIN & CV, Shell log (stdout)
    if (batch_idx + 1) % log_interval == 0:
        log_str = '{} | '.format(tag)
        if timer is not None:
            timer_step = step
            if info_dict.get("cv_step", None) is not None:
                timer_step = info_dict['cv_step']
            steps_per_second = timer.steps_per_second(timer_step)
            log_str += 'steps/sec {:.3f}| '.format(steps_per_second)
        log_str += 'Batch {}/{} loss {:.6f} '.format(
            epoch, batch_idx + 1,
            tensor_to_scalar(loss_dict['loss']) * accum_grad)
        for name, value in loss_dict.items():
            if name != 'loss' and value is not None:
                log_str += '{} {:.6f} '.format(name, tensor_to_scalar(value))
        if tag == "TRAIN":
            log_str += 'lr {} grad_norm {:.6f} rank {}'.format(
                lrs_to_str(lrs), info_dict['grad_norm'], rank)
        logging.debug(log_str)


def log_per_epoch(writer, info_dict):
    epoch = info_dict["epoch"]
    loss_dict = info_dict["loss_dict"]
    logging.info('Epoch {} Step {} CV info lr {} cv_loss {} acc {}'.format(
        epoch, info_dict["step"], lrs_to_str(info_dict['lrs']),
        tensor_to_scalar(loss_dict["loss"]),
        tensor_to_scalar(loss_dict["acc"])))
    if writer is not None:
        for name, value in loss_dict.items():
            writer.add_scalar('epoch/{}'.format(name),
                              tensor_to_scalar(value), epoch)
