# Modelled on: https://github.com/openai/guided-diffusion (scripts/image_train.py + guided_diffusion/train_util.py)
"""
Train a diffusion model on images.
"""

import argparse

import numpy as np
import torch as th

from guided_diffusion import dist_util, logger
from guided_diffusion.image_datasets import load_data
from guided_diffusion.resample import create_named_schedule_sampler
from guided_diffusion.script_util import (
    model_and_diffusion_defaults,
    create_model_and_diffusion,
    args_to_dict,
    add_dict_to_argparser,
)
from guided_diffusion.train_util import TrainLoop


def main(steps=None, argv=None):
    """Trains `steps` batches on synthetic CPU images; returns what training keeps."""
    args = create_argparser().parse_args([] if argv is None else argv)
    if steps is not None:
        args.lr_anneal_steps = steps

    th.manual_seed(args.seed)
    np.random.seed(args.seed)

    dist_util.setup_dist()
    logger.configure(format_strs=("memory",))

    logger.log("creating model and diffusion...")
    model, diffusion = create_model_and_diffusion(
        **args_to_dict(args, model_and_diffusion_defaults().keys())
    )
    model.to(dist_util.dev())
    schedule_sampler = create_named_schedule_sampler(args.schedule_sampler, diffusion)

    logger.log("creating data loader...")
    data = load_data(
        data_dir=args.data_dir,
        batch_size=args.batch_size,
        image_size=args.image_size,
        class_cond=args.class_cond,
        seed=args.seed,
    )

    logger.log("training...")
    loop = TrainLoop(
        model=model,
        diffusion=diffusion,
        data=data,
        batch_size=args.batch_size,
        microbatch=args.microbatch,
        lr=args.lr,
        ema_rate=args.ema_rate,
        log_interval=args.log_interval,
        save_interval=args.save_interval,
        resume_checkpoint=args.resume_checkpoint,
        use_fp16=args.use_fp16,
        fp16_scale_growth=args.fp16_scale_growth,
        schedule_sampler=schedule_sampler,
        weight_decay=args.weight_decay,
        lr_anneal_steps=args.lr_anneal_steps,
    )
    loop.run_loop()
    return loop


def create_argparser():
    defaults = dict(
        data_dir="",
        schedule_sampler="loss-second-moment",
        lr=1e-4,
        weight_decay=0.0,
        lr_anneal_steps=30,
        batch_size=8,
        microbatch=-1,  # -1 disables microbatches
        ema_rate="0.9999",  # comma-separated list of EMA values
        log_interval=100,
        save_interval=10000,
        resume_checkpoint="",
        use_fp16=False,
        fp16_scale_growth=1e-3,
        seed=0,
    )
    defaults.update(model_and_diffusion_defaults())
    parser = argparse.ArgumentParser()
    add_dict_to_argparser(parser, defaults)
    return parser


if __name__ == "__main__":
    main()
