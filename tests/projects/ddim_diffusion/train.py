# DDPM training + DDIM sampling on random 8x8 images, modelled on ermongroup/ddim (main.py)
import argparse
import copy

import torch

from ddim.runners.diffusion import Diffusion
from ddim.utils.config import TINY_CONFIG, dict2namespace
from ddim.utils.tb_logger import ScalarLogger


def parse_args_and_config():
    args = argparse.Namespace(seed=1234, timesteps=10, eta=0.0, sample=False)
    new_config = dict2namespace(copy.deepcopy(TINY_CONFIG))
    new_config.tb_logger = ScalarLogger()
    new_config.device = torch.device("cpu")
    return args, new_config


def main(steps: int) -> dict:
    args, config = parse_args_and_config()
    torch.manual_seed(args.seed)

    runner = Diffusion(args, config, device=config.device)
    stats = runner.train(max_steps=steps)
    samples = runner.sample(n=4)
    stats["sample_mean"] = samples.mean().item()
    return stats


if __name__ == "__main__":
    print(main(5))
