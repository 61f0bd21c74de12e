# Modelled on openai/improved-diffusion (scripts/image_train.py, improved_diffusion/train_util.py,
# gaussian_diffusion.py, resample.py, nn.py, logger.py): a script builds the model and the
# diffusion, a TrainLoop runs microbatched steps with importance-sampled timesteps, EMA copies
# of the parameters and a key-value logger. Written anew and much smaller; random images stand
# in for the data loader, a three-layer conv net for the UNet.
import torch as th

import logger
from gaussian_diffusion import GaussianDiffusion, get_named_beta_schedule
from nn import TinyUNet
from resample import create_named_schedule_sampler
from train_util import TrainLoop


def load_data(batch_size, image_size=8):
    while True:
        yield th.rand(batch_size, 3, image_size, image_size) * 2 - 1, {}


def create_model_and_diffusion(diffusion_steps=20, noise_schedule="linear"):
    model = TinyUNet()
    diffusion = GaussianDiffusion(betas=get_named_beta_schedule(noise_schedule, diffusion_steps))
    return model, diffusion


def main(max_steps=4, batch_size=8, microbatch=4):
    logger.configure()
    logger.log("creating model and diffusion...")
    model, diffusion = create_model_and_diffusion()
    schedule_sampler = create_named_schedule_sampler("loss-second-moment", diffusion)
    logger.log("training...")
    loop = TrainLoop(
        model=model,
        diffusion=diffusion,
        data=load_data(batch_size),
        batch_size=batch_size,
        microbatch=microbatch,
        lr=1e-4,
        ema_rate="0.9999",
        log_interval=10,
        sample_interval=2,
        schedule_sampler=schedule_sampler,
    )
    loop.run_loop(max_steps)
    return loop


if __name__ == "__main__":
    main()
