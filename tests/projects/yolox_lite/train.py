#!/usr/bin/env python3
# Modelled on tools/train.py of Megvii-BaseDetection/YOLOX: build an Exp, hand it to Trainer.
import argparse
import logging
import random

import torch

from yolox_lite.core import Trainer
from yolox_lite.exp import Exp


def make_parser():
    parser = argparse.ArgumentParser("YOLOX train parser")
    parser.add_argument("-expn", "--experiment-name", type=str, default="yolox_lite_s")
    parser.add_argument("-b", "--batch-size", type=int, default=4, help="batch size")
    parser.add_argument("--fp16", dest="fp16", default=False, action="store_true")
    parser.add_argument("--cache", type=str, nargs="?", const="ram", default=None)
    parser.add_argument("-l", "--logger", type=str, default="wandb")
    parser.add_argument("--max-steps", type=int, default=30)
    return parser


def main(steps=30):
    torch.set_num_threads(1)
    random.seed(0)
    torch.manual_seed(0)
    logging.getLogger("yolox_lite").setLevel(logging.WARNING)

    args = make_parser().parse_args(["--max-steps", str(steps)])
    exp = Exp()
    trainer = Trainer(exp, args)
    trainer.train()
    ap = trainer.evaluate_and_save_model()
    last = {k: float(v.global_avg) for k, v in trainer.meter.get_filtered_meter("loss").items()}
    return {
        "steps": trainer.progress_in_iter + 1,
        "ap_proxy": float(ap),
        "fg_ratio_ema": float(trainer.model.head.fg_ratio_ema),
        "losses": last,
        "logged_rows": len(trainer.wandb_logger.rows),
    }


if __name__ == "__main__":
    print(main(int(make_parser().parse_args().max_steps)))
