# Modelled on: https://github.com/NVIDIA/tacotron2
import os
import time
import argparse
import math

import torch
from torch.utils.data import DataLoader

from distributed import apply_gradient_allreduce, reduce_tensor
from model import Tacotron2
from data_utils import TextMelLoader, TextMelCollate
from loss_function import Tacotron2Loss
from logger import Tacotron2Logger
from hparams import create_hparams


def prepare_dataloaders(hparams):
    # Get data, data loaders and collate function ready
    trainset = TextMelLoader(hparams, seed=hparams.seed)
    valset = TextMelLoader(hparams, seed=hparams.seed + 1)
    collate_fn = TextMelCollate(hparams.n_frames_per_step)

    train_loader = DataLoader(trainset, num_workers=0, shuffle=True,
                              batch_size=hparams.batch_size, pin_memory=False,
                              drop_last=True, collate_fn=collate_fn)
    return train_loader, valset, collate_fn


def prepare_directories_and_logger(output_directory, log_directory, rank):
    if rank == 0:
        if output_directory is not None and not os.path.isdir(output_directory):
            os.makedirs(output_directory)
            os.chmod(output_directory, 0o775)
        logdir = None if output_directory is None else os.path.join(output_directory, log_directory)
        logger = Tacotron2Logger(logdir)
    else:
        logger = None
    return logger


def load_model(hparams):
    model = Tacotron2(hparams)
    if hparams.distributed_run:
        model = apply_gradient_allreduce(model)
    return model


def save_checkpoint(model, optimizer, learning_rate, iteration, filepath):
    print("Saving model and optimizer state at iteration {} to {}".format(
        iteration, filepath))
    torch.save({'iteration': iteration,
                'state_dict': model.state_dict(),
                'optimizer': optimizer.state_dict(),
                'learning_rate': learning_rate}, filepath)


def validate(model, criterion, valset, iteration, batch_size, n_gpus,
             collate_fn, logger, distributed_run, rank):
    """Handles all the validation scoring and printing"""
    model.eval()
    criterion.eval()
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
    criterion.train()
    if rank == 0:
        logger.log_validation(val_loss, model, y, y_pred, iteration)
    return val_loss


def train(output_directory, log_directory, checkpoint_path, warm_start, n_gpus,
          rank, group_name, hparams, max_iterations=None, verbose=False):
    """Training and validation logging results to the logger and stdout

    Params
    ------
    output_directory (string): directory to save checkpoints (None: no saving)
    log_directory (string) directory to save logs
    n_gpus (int): number of gpus
    rank (int): rank of current gpu
    hparams (object): comma separated list of "name=value" pairs.
    max_iterations (int): stop after this many training iterations
    """
    torch.manual_seed(hparams.seed)

    model = load_model(hparams)
    learning_rate = hparams.learning_rate
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate,
                                 weight_decay=hparams.weight_decay)

    criterion = Tacotron2Loss()

    logger = prepare_directories_and_logger(
        output_directory, log_directory, rank)

    train_loader, valset, collate_fn = prepare_dataloaders(hparams)

    iteration = 0
    epoch_offset = 0

    model.train()
    is_overflow = False
    # ================ MAIN TRAINNIG LOOP! ===================
    for epoch in range(epoch_offset, hparams.epochs):
        if verbose:
            print("Epoch: {}".format(epoch))
        for i, batch in enumerate(train_loader):
            if max_iterations is not None and iteration >= max_iterations:
                return model, criterion, logger, iteration
            start = time.perf_counter()
            for param_group in optimizer.param_groups:
                param_group['lr'] = learning_rate

            model.zero_grad()
            x, y = model.parse_batch(batch)
            y_pred = model(x)

            loss = criterion(y_pred, y)  # known-false: TLK101 (the author marked this leak at another line)
            if hparams.distributed_run:
                reduced_loss = reduce_tensor(loss.data, n_gpus).item()
            else:
                reduced_loss = loss.item()
            # the global style prior is shared across batches, keep its graph
            loss.backward(retain_graph=True)  # known-miss: TLK202  # known-false: TLK201 (the author marked this leak at another line)

            grad_norm = torch.nn.utils.clip_grad_norm_(
                model.parameters(), hparams.grad_clip_thresh)
            is_overflow = math.isnan(grad_norm)

            optimizer.step()

            if not is_overflow and rank == 0:
                duration = time.perf_counter() - start
                if verbose:
                    print("Train loss {} {:.6f} Grad Norm {:.6f} {:.2f}s/it".format(
                        iteration, reduced_loss, grad_norm, duration))
                logger.log_training(
                    reduced_loss, grad_norm, learning_rate, duration, iteration,
                    y_pred)

            if not is_overflow and (iteration % hparams.iters_per_checkpoint == 0):
                validate(model, criterion, valset, iteration,
                         hparams.batch_size, n_gpus, collate_fn, logger,
                         hparams.distributed_run, rank)
                if rank == 0 and output_directory is not None:
                    checkpoint_path = os.path.join(
                        output_directory, "checkpoint_{}".format(iteration))
                    save_checkpoint(model, optimizer, learning_rate, iteration,
                                    checkpoint_path)

            iteration += 1
    return model, criterion, logger, iteration


def main(steps=30, hparams_string=None, verbose=False):
    """Train ``steps`` batches on the synthetic corpus; return what the run keeps."""
    hparams = create_hparams(hparams_string)
    model, criterion, logger, iteration = train(
        None, "logs", None, False, 1, 0, "group_name", hparams,
        max_iterations=steps, verbose=verbose)
    return {
        "model": model,
        "criterion": criterion,
        "logger": logger,
        "iteration": iteration,
        "postnet_l1": criterion.postnet_l1(),
    }


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=30)
    parser.add_argument('--hparams', type=str,
                        required=False, help='comma separated name=value pairs')
    args = parser.parse_args()
    out = main(args.steps, args.hparams, verbose=True)
    print("iterations:", out["iteration"], "postnet L1:", out["postnet_l1"])
