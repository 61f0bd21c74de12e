#!/usr/bin/env python3
# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
# Modelled on: https://github.com/facebookresearch/unbiased-teacher/blob/main/train_net.py
#   (trainer: ubteacher/engine/trainer.py, hooks: ubteacher/engine/hooks.py,
#    meta-arch: ubteacher/modeling/meta_arch/rcnn.py)
import argparse
import logging

import torch

from ubteacher import add_ubteacher_config, get_cfg
from ubteacher.engine.trainer import UBTeacherTrainer


def setup(args):
    """
    Create configs and perform basic setups.
    """
    cfg = get_cfg()
    add_ubteacher_config(cfg)
    cfg.merge_from_list(args.opts)
    cfg.freeze()
    return cfg


def main(steps=10, opts=None):
    torch.manual_seed(0)
    args = argparse.Namespace(opts=["SOLVER.MAX_ITER", int(steps)] + list(opts or []))
    cfg = setup(args)
    if cfg.SEMISUPNET.Trainer != "ubteacher":
        raise ValueError("Trainer Name is not found.")
    trainer = UBTeacherTrainer(cfg)
    trainer.resume_or_load(resume=False)
    trainer.train()
    return trainer


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    t = main(parser.parse_args().steps)
    print(t._hooks[-1].lines[-1])
