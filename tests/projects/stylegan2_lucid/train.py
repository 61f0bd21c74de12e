"""Entry point modelled on stylegan2_pytorch/cli.py (train_from_folder -> run_training):
build a Trainer, point it at the data, and call model.train() once per step."""
import torch

from stylegan2_pytorch.helpers import NanException
from stylegan2_pytorch.trainer import Trainer


def run_training(model_args, num_images, num_train_steps, seed=42):
    torch.manual_seed(seed)
    model = Trainer(**model_args)
    model.init_GAN()
    model.set_data_src(num_images)

    for _ in range(num_train_steps - model.steps):
        for attempt in range(3):   # retry_call(model.train, tries=3, exceptions=NanException)
            try:
                model.train()  # known-false: TLK103 (the author marked this leak at another line: networks.py:329, the EMA helper's copy_, which the message names)
                break
            except NanException:
                continue
        if _ % 50 == 0:
            print(model.print_log())
    return model


def main(steps):
    torch.set_num_threads(1)  # tiny CPU run; avoid thread oversubscription
    model_args = dict(
        name='default',
        image_size=8,
        network_capacity=2,
        fmap_max=32,
        latent_dim=16,
        style_depth=2,
        batch_size=4,
        gradient_accumulate_every=1,
        lr=2e-4,
        mixed_prob=0.9,
        aug_prob=0.25,
        aug_types=['translation', 'color'],
        pl_start=2,
        pl_every=2,
        gp_every=2,
        ema_start=3,
        ema_every=1,
        evaluate_every=1000,
        num_image_tiles=2,
        log=True,
    )
    model = run_training(model_args, num_images=64, num_train_steps=steps)
    return {
        'steps': model.steps,
        'd_loss': model.d_loss,
        'g_loss': model.g_loss,
        'pl_mean': model.pl_mean,
        'trainer': model,
    }


if __name__ == '__main__':
    out = main(20)
    print()
    print({k: v for k, v in out.items() if k != 'trainer'})
