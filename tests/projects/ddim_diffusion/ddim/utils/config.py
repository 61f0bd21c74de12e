import argparse


def dict2namespace(config):
    namespace = argparse.Namespace()
    for key, value in config.items():
        if isinstance(value, dict):
            new_value = dict2namespace(value)
        else:
            new_value = value
        setattr(namespace, key, new_value)
    return namespace


TINY_CONFIG = {
    "data": {"dataset": "RANDOM", "image_size": 8, "channels": 3, "logit_transform": False,
             "uniform_dequantization": False, "gaussian_dequantization": False,
             "random_flip": True, "rescaled": True, "num_workers": 0},
    "model": {"type": "simple", "in_channels": 3, "out_ch": 3, "ch": 16, "ch_mult": [1, 2],
              "num_res_blocks": 1, "attn_resolutions": [], "dropout": 0.1, "var_type": "fixedlarge",
              "ema_rate": 0.999, "ema": True, "resamp_with_conv": True},
    "diffusion": {"beta_schedule": "linear", "beta_start": 0.0001, "beta_end": 0.02,
                  "num_diffusion_timesteps": 100},
    "training": {"batch_size": 8, "n_epochs": 10000, "snapshot_freq": 5000},
    "optim": {"weight_decay": 0.000, "optimizer": "Adam", "lr": 0.0002, "beta1": 0.9,
              "amsgrad": False, "eps": 0.00000001, "grad_clip": 1.0},
}
