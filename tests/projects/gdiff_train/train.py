"""
Train a diffusion model on (synthetic) images.
"""
# Modelled on: https://github.com/openai/guided-diffusion

import torch as th

from guided_diffusion import logger
from guided_diffusion.image_datasets import load_data
from guided_diffusion.resample import create_named_schedule_sampler
from guided_diffusion.script_util import (
    args_to_dict,
    create_model_and_diffusion,
    model_and_diffusion_defaults,
)
from guided_diffusion.train_util import TrainLoop


def create_defaults():
    defaults = dict(
        schedule_sampler="loss-second-moment",
        lr=1e-4,
        weight_decay=0.0,
        batch_size=8,
        microbatch=-1,
        ema_rate="0.9999",
        log_interval=10,
        save_interval=10000,
        seed=0,
    )
    defaults.update(model_and_diffusion_defaults())
    return defaults


def main(steps=30, verbose=False):
    args = create_defaults()
    th.manual_seed(args["seed"])
    logger.configure(verbose=verbose)

    logger.log("creating model and diffusion...")
    model, diffusion = create_model_and_diffusion(
        **args_to_dict(args, model_and_diffusion_defaults().keys())
    )
    schedule_sampler = create_named_schedule_sampler(args["schedule_sampler"], diffusion)

    logger.log("creating data loader...")
    data = load_data(batch_size=args["batch_size"], image_size=args["image_size"], seed=args["seed"])

    logger.log("training...")
    loop = TrainLoop(
        model=model,
        diffusion=diffusion,
        data=data,
        batch_size=args["batch_size"],
        microbatch=args["microbatch"],
        lr=args["lr"],
        ema_rate=args["ema_rate"],
        log_interval=args["log_interval"],
        save_interval=args["save_interval"],
        schedule_sampler=schedule_sampler,
        weight_decay=args["weight_decay"],
        lr_anneal_steps=steps,
    )
    loop.run_loop()
    return {"loop": loop, "records": logger.get_records(), "logger": logger.get_current()}


if __name__ == "__main__":
    out = main(30, verbose=True)
    print("steps:", out["loop"].step, "records:", len(out["records"]))
