# Modelled on: https://github.com/openai/improved-diffusion
"""
Train a diffusion model on images (synthetic blobs instead of an image folder).
"""

import numpy as np
import torch as th

from improved_diffusion import logger
from improved_diffusion.gaussian_diffusion import GaussianDiffusion, LossType, get_named_beta_schedule
from improved_diffusion.resample import create_named_schedule_sampler
from improved_diffusion.train_util import TrainLoop
from improved_diffusion.unet import UNetModel


def model_and_diffusion_defaults():
    return dict(
        image_size=16,
        num_channels=16,
        diffusion_steps=50,
        noise_schedule="linear",
        rescale_timesteps=True,
    )


def create_model_and_diffusion(image_size, num_channels, diffusion_steps, noise_schedule, rescale_timesteps):
    model = UNetModel(in_channels=3, model_channels=num_channels, out_channels=3)
    diffusion = GaussianDiffusion(
        betas=get_named_beta_schedule(noise_schedule, diffusion_steps),
        loss_type=LossType.MSE,
        rescale_timesteps=rescale_timesteps,
    )
    return model, diffusion


def load_data(*, batch_size, image_size, seed=0):
    """
    Yields (images, kwargs) pairs forever; images are random coloured blobs in [-1, 1].
    """
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:image_size, 0:image_size]
    while True:
        imgs = np.zeros((batch_size, 3, image_size, image_size), dtype=np.float32)
        for b in range(batch_size):
            cy, cx = rng.uniform(3, image_size - 3, size=2)
            r = rng.uniform(2, image_size / 3)
            mask = ((yy - cy) ** 2 + (xx - cx) ** 2) < r ** 2
            colour = rng.uniform(-1, 1, size=3)
            imgs[b] = -0.8
            imgs[b][:, mask] = colour[:, None]
        yield th.from_numpy(imgs), {}


def main(steps=100):
    th.manual_seed(0)
    np.random.seed(0)
    logger.configure()

    logger.log("creating model and diffusion...")
    defaults = model_and_diffusion_defaults()
    model, diffusion = create_model_and_diffusion(**defaults)
    schedule_sampler = create_named_schedule_sampler("loss-second-moment", diffusion)

    logger.log("creating data loader...")
    data = load_data(batch_size=8, image_size=defaults["image_size"])

    logger.log("training...")
    loop = TrainLoop(
        model=model,
        diffusion=diffusion,
        data=data,
        batch_size=8,
        microbatch=4,
        lr=1e-4,
        ema_rate="0.9999",
        log_interval=100,
        save_interval=1000,
        schedule_sampler=schedule_sampler,
        weight_decay=0.0,
        lr_anneal_steps=steps,
    )
    loop.run_loop()
    return loop


if __name__ == "__main__":
    main()
