# Modelled on https://github.com/openai/improved-diffusion (see MEASURED.md): a blind test project, session 39.
"""
Train a diffusion model on images (scripts/image_train.py, run for `steps` steps on CPU),
then draw a couple of samples from the EMA weights (scripts/image_sample.py).
"""
import argparse
import copy

import torch as th

from improved_diffusion import logger
from improved_diffusion.image_datasets import load_data
from improved_diffusion.resample import create_named_schedule_sampler
from improved_diffusion.script_util import (
    add_dict_to_argparser,
    args_to_dict,
    create_model_and_diffusion,
    model_and_diffusion_defaults,
)
from improved_diffusion.train_util import TrainLoop


def create_argparser():
    defaults = dict(
        data_dir="",
        schedule_sampler="loss-second-moment",
        lr=1e-4,
        weight_decay=0.0,
        lr_anneal_steps=0,
        batch_size=4,
        microbatch=-1,  # -1 disables microbatches
        ema_rate="0.9999",  # comma-separated list of EMA values
        log_interval=10,
        save_interval=10000,
        resume_checkpoint="",
    )
    defaults.update(model_and_diffusion_defaults())
    parser = argparse.ArgumentParser()
    add_dict_to_argparser(parser, defaults)
    return parser


@th.no_grad()
def sample_from_ema(model, diffusion, ema_params, image_size, num_samples=2):
    ema_model = copy.deepcopy(model)
    for p, e in zip(ema_model.parameters(), ema_params):
        p.copy_(e)
    ema_model.eval()
    return diffusion.p_sample_loop(ema_model, (num_samples, 3, image_size, image_size),
                                   clip_denoised=True)


def main(steps):
    args = create_argparser().parse_args([])
    args.lr_anneal_steps = steps
    th.manual_seed(0)

    logger.configure()

    logger.log("creating model and diffusion...")
    model, diffusion = create_model_and_diffusion(
        **args_to_dict(args, model_and_diffusion_defaults().keys())
    )
    schedule_sampler = create_named_schedule_sampler(args.schedule_sampler, diffusion)

    logger.log("creating data loader...")
    data = load_data(
        batch_size=args.batch_size,
        image_size=args.image_size,
        class_cond=args.class_cond,
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
        schedule_sampler=schedule_sampler,
        weight_decay=args.weight_decay,
        lr_anneal_steps=args.lr_anneal_steps,
    )
    loop.run_loop()

    samples = sample_from_ema(model, diffusion, loop.ema_params[0], args.image_size)
    stats = dict(loop.last_log)
    stats["sample_mean"] = samples.mean().item()
    return stats


if __name__ == "__main__":
    import time
    t = time.time()
    out = main(10)
    print({k: out[k] for k in ("loss", "mse", "vb", "grad_norm", "sample_mean")}, time.time() - t)
