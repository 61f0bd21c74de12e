# Modelled on: https://github.com/NVIDIA/tacotron2 (train.py, model.py, loss_function.py, logger.py)
import os
import time
import argparse
import math

import torch
from torch.utils.data import DataLoader

from model import Tacotron2
from data_utils import TextMelLoader, TextMelCollate
from loss_function import Tacotron2Loss, mel_l1_error, gate_accuracy
from logger import Tacotron2Logger
from hparams import create_hparams


def reduce_tensor(tensor, n_gpus):
    rt = tensor.clone()
    rt /= n_gpus
    return rt


def prepare_dataloaders(hparams):
    # Get data, data loaders and collate function ready
    trainset = TextMelLoader(hparams.n_train_items, hparams, seed=hparams.seed)
    valset = TextMelLoader(hparams.n_val_items, hparams, seed=hparams.seed + 1)
    collate_fn = TextMelCollate(hparams.n_frames_per_step)

    # consecutive batches are consecutive sentences: no shuffling
    train_loader = DataLoader(trainset, num_workers=0, shuffle=False,
                              sampler=None,
                              batch_size=hparams.batch_size, pin_memory=False,
                              drop_last=True, collate_fn=collate_fn)
    return train_loader, valset, collate_fn


def prepare_directories_and_logger(output_directory, log_directory, rank):
    if rank == 0:
        logger = Tacotron2Logger(os.path.join(output_directory, log_directory))
    else:
        logger = None
    return logger


def load_model(hparams):
    model = Tacotron2(hparams)
    if torch.cuda.is_available():
        model = model.cuda()
    return model


def validate(model, criterion, valset, iteration, batch_size, n_gpus,
             collate_fn, logger, distributed_run, rank):
    """Handles all the validation scoring and printing"""
    model.eval()
    with torch.no_grad():
        val_loader = DataLoader(valset, sampler=None, num_workers=0,
                                shuffle=False, batch_size=batch_size,
                                pin_memory=False, collate_fn=collate_fn)

        val_loss = 0.0
        for i, batch in enumerate(val_loader):
            x, y = model.parse_batch(batch)
            y_pred = model(x)
            loss = criterion(y_pred, y)
            if distributed_run:
                reduced_val_loss = reduce_tensor(loss.data, n_gpus).item()
            else:
                reduced_val_loss = loss.item()
            val_loss += reduced_val_loss
        val_loss = val_loss / (i + 1)

    model.train()
    if rank == 0:
        logger.log_validation(val_loss, model, y, y_pred, iteration)
    return val_loss


def train(output_directory, log_directory, checkpoint_path, warm_start, n_gpus,
          rank, group_name, hparams, max_iterations=None):
    """Training and validation logging results to the logger

    Params
    ------
    output_directory (string): directory to save checkpoints
    log_directory (string) directory to save tensorboard logs
    checkpoint_path(string): checkpoint path
    n_gpus (int): number of gpus
    rank (int): rank of current gpu
    hparams (object): comma separated list of "name=value" pairs.
    max_iterations (int): stop after this many batches
    """
    torch.manual_seed(hparams.seed)
    torch.cuda.manual_seed(hparams.seed)

    model = load_model(hparams)
    learning_rate = hparams.learning_rate
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate,
                                 weight_decay=hparams.weight_decay)

    criterion = Tacotron2Loss(hparams.gate_ema_decay)

    logger = prepare_directories_and_logger(
        output_directory, log_directory, rank)

    train_loader, valset, collate_fn = prepare_dataloaders(hparams)

    iteration = 0
    epoch_offset = 0

    model.train()
    is_overflow = False
    # ================ MAIN TRAINNIG LOOP! ===================
    for epoch in range(epoch_offset, hparams.epochs):
        print("Epoch: {}".format(epoch))
        for i, batch in enumerate(train_loader):
            if max_iterations is not None and iteration >= max_iterations:
                return model, optimizer, criterion, logger, iteration
            start = time.perf_counter()
            for param_group in optimizer.param_groups:
                param_group['lr'] = learning_rate

            model.zero_grad()
            x, y = model.parse_batch(batch)
            y_pred = model(x)

            loss = criterion(y_pred, y)
            if hparams.distributed_run:
                reduced_loss = reduce_tensor(loss.data, n_gpus).item()
            else:
                reduced_loss = loss.item()

            logger.accumulate({"mel_l1": mel_l1_error(y_pred, y),
                               "gate_accuracy": gate_accuracy(y_pred, y)},
                              n=x[0].size(0))

            loss.backward(retain_graph=True)  # expect: TLK202

            grad_norm = torch.nn.utils.clip_grad_norm_(
                model.parameters(), hparams.grad_clip_thresh)
            is_overflow = math.isnan(grad_norm)

            optimizer.step()

            if not is_overflow and rank == 0:
                duration = time.perf_counter() - start
                print("Train loss {} {:.6f} Grad Norm {:.6f} {:.2f}s/it".format(
                    iteration, reduced_loss, grad_norm, duration))
                logger.log_training(
                    reduced_loss, float(grad_norm), learning_rate, duration, iteration)
                logger.log_gate_monitor(criterion.gate_activation_ema, iteration)

            if not is_overflow and (iteration % hparams.iters_per_checkpoint == 0):
                validate(model, criterion, valset, iteration,
                         hparams.batch_size, n_gpus, collate_fn, logger,
                         hparams.distributed_run, rank)

            iteration += 1

        if rank == 0:
            logger.log_epoch(epoch)
    return model, optimizer, criterion, logger, iteration


def main(steps):
    """Trains `steps` batches on synthetic CPU data; returns what training keeps."""
    hparams = create_hparams()
    model, optimizer, criterion, logger, iteration = train(
        "outdir", "logdir", None, False, 1, 0, "group_name", hparams,
        max_iterations=steps)
    return {"model": model, "optimizer": optimizer, "criterion": criterion,
            "logger": logger, "iteration": iteration}


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=30)
    parser.add_argument('--hparams', type=str,
                        required=False, help='comma separated name=value pairs')
    args = parser.parse_args()
    main(args.steps)
