#!/usr/bin/env python3
# Modelled on egs/librispeech/ASR/conformer_ctc/train.py of k2-fsa/icefall (get_parser, get_params, run).
import argparse
import copy
import logging

import torch

from icefall_lite.checkpoint import save_checkpoint
from icefall_lite.conformer_ctc import Conformer
from icefall_lite.conformer_ctc.engine import BpeCtcTrainingGraphCompiler, train_one_epoch
from icefall_lite.dataset import LibriSpeechAsrDataModule
from icefall_lite.diagnostics import TensorDiagnosticOptions, attach_diagnostics
from icefall_lite.optim import Eden
from icefall_lite.utils import AttributeDict, SummaryWriter, setup_logger


def get_parser():
    parser = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--world-size", type=int, default=1)
    parser.add_argument("--num-epochs", type=int, default=3)
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--exp-dir", type=str, default="conformer_ctc/exp")
    parser.add_argument("--att-rate", type=float, default=0.7)
    parser.add_argument("--print-diagnostics", type=bool, default=True,
                        help="Accumulate and print module/gradient diagnostics")
    parser.add_argument("--tensorboard", type=bool, default=True)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=42)
    return parser


def get_params() -> AttributeDict:
    params = AttributeDict(
        {
            "best_train_loss": float("inf"),
            "best_valid_loss": float("inf"),
            "best_train_epoch": -1,
            "best_valid_epoch": -1,
            "batch_idx_train": 0,
            "log_interval": 10,
            "reset_interval": 200,
            "valid_interval": 10,
            "average_period": 5,
            # parameters for conformer
            "feature_dim": 20,
            "subsampling_factor": 4,
            "use_feat_batchnorm": True,
            "attention_dim": 32,
            "nhead": 2,
            "num_decoder_layers": 1,
            # parameters for loss
            "beam_size": 10,
            "reduction": "sum",
            "use_double_scores": True,
            # parameters for the (synthetic) data
            "vocab_size": 16,
            "batch_size": 4,
            "max_frames": 48,
            "num_train_batches": 40,
            "num_valid_batches": 2,
            # parameters for the optimizer
            "base_lr": 1e-3,
            "lr_batches": 5000,
            "lr_epochs": 6,
            "warm_step": 10,
        }
    )
    return params


def run(rank, world_size, args):
    params = get_params()
    params.update(vars(args))

    torch.manual_seed(params.seed)
    setup_logger(f"{params.exp_dir}/log/log-train")
    logging.info("Training started")

    tb_writer = SummaryWriter(log_dir=f"{params.exp_dir}/tensorboard") if args.tensorboard and rank == 0 else None

    num_classes = params.vocab_size  # 0 is the blank
    device = torch.device("cpu")

    graph_compiler = BpeCtcTrainingGraphCompiler(device=device, sos_id=1, eos_id=1)

    logging.info("About to create model")
    model = Conformer(
        num_features=params.feature_dim,
        nhead=params.nhead,
        d_model=params.attention_dim,
        num_classes=num_classes,
        subsampling_factor=params.subsampling_factor,
        num_decoder_layers=params.num_decoder_layers,
        use_feat_batchnorm=params.use_feat_batchnorm,
    )
    model.to(device)
    model_avg = copy.deepcopy(model).to(torch.float64)

    optimizer = torch.optim.AdamW(model.parameters(), lr=params.base_lr, weight_decay=1e-6)
    scheduler = Eden(optimizer, params.lr_batches, params.lr_epochs, warmup_batches=params.warm_step)

    if params.print_diagnostics:
        opts = TensorDiagnosticOptions(64)  # allow 4 megabytes per sub-module
        diagnostic = attach_diagnostics(model, opts)

    librispeech = LibriSpeechAsrDataModule(params)
    train_dl = librispeech.train_dataloaders()
    valid_dl = librispeech.valid_dataloaders()

    for epoch in range(params.start_epoch, params.num_epochs):
        scheduler.step_epoch(epoch)
        params.cur_epoch = epoch

        train_one_epoch(
            params=params,
            model=model,
            optimizer=optimizer,
            scheduler=scheduler,
            graph_compiler=graph_compiler,
            train_dl=train_dl,
            valid_dl=valid_dl,
            model_avg=model_avg,
            tb_writer=tb_writer,
            world_size=world_size,
        )

        save_checkpoint(
            filename=f"{params.exp_dir}/epoch-{params.cur_epoch}.pt",
            model=model,
            model_avg=model_avg,
            params=params,
            optimizer=optimizer,
            scheduler=scheduler,
            rank=rank,
        )
        if params.batch_idx_train >= params.max_steps:
            break

    lines = diagnostic.print_diagnostics() if params.print_diagnostics else []
    logging.info("Done!")
    return params, tb_writer, lines


def main(steps=30):
    torch.set_num_threads(1)
    parser = get_parser()
    args = parser.parse_args(["--max-steps", str(steps)])
    params, tb_writer, lines = run(rank=0, world_size=1, args=args)
    return {
        "steps": params.batch_idx_train,
        "train_loss": float(params.train_loss),
        "best_valid_loss": float(params.best_valid_loss),
        "diagnostic_lines": len(lines),
        "tb_scalars": sum(len(v) for v in tb_writer.scalars.values()),
    }


if __name__ == "__main__":
    print(main())
