import argparse

from . import gaussian_diffusion as gd
from .unet import UNetModel


def model_and_diffusion_defaults():
    """
    Defaults for image training (shrunk so a CPU run takes seconds).
    """
    return dict(
        image_size=8,
        num_channels=16,
        num_res_blocks=1,
        num_heads=1,
        attention_resolutions="2",
        dropout=0.0,
        learn_sigma=True,
        sigma_small=False,
        class_cond=False,
        diffusion_steps=100,
        noise_schedule="cosine",
        timestep_respacing="",
        use_kl=False,
        predict_xstart=False,
        rescale_timesteps=True,
        rescale_learned_sigmas=True,
        use_checkpoint=False,
        use_scale_shift_norm=False,
    )


def create_model_and_diffusion(
    image_size, class_cond, learn_sigma, sigma_small, num_channels, num_res_blocks,
    num_heads, attention_resolutions, dropout, diffusion_steps, noise_schedule,
    timestep_respacing, use_kl, predict_xstart, rescale_timesteps, rescale_learned_sigmas,
    use_checkpoint, use_scale_shift_norm,
):
    model = create_model(
        image_size, num_channels, num_res_blocks, learn_sigma=learn_sigma,
        attention_resolutions=attention_resolutions, num_heads=num_heads, dropout=dropout,
    )
    diffusion = create_gaussian_diffusion(
        steps=diffusion_steps, learn_sigma=learn_sigma, sigma_small=sigma_small,
        noise_schedule=noise_schedule, use_kl=use_kl, predict_xstart=predict_xstart,
        rescale_timesteps=rescale_timesteps, rescale_learned_sigmas=rescale_learned_sigmas,
        timestep_respacing=timestep_respacing,
    )
    return model, diffusion


def create_model(image_size, num_channels, num_res_blocks, learn_sigma, attention_resolutions,
                 num_heads, dropout):
    channel_mult = (1, 2)
    attention_ds = []
    for res in attention_resolutions.split(","):
        attention_ds.append(image_size // int(res))

    return UNetModel(
        in_channels=3,
        model_channels=num_channels,
        out_channels=(3 if not learn_sigma else 6),
        num_res_blocks=num_res_blocks,
        attention_resolutions=tuple(attention_ds),
        dropout=dropout,
        channel_mult=channel_mult,
        num_heads=num_heads,
    )


def create_gaussian_diffusion(*, steps=1000, learn_sigma=False, sigma_small=False,
                              noise_schedule="linear", use_kl=False, predict_xstart=False,
                              rescale_timesteps=False, rescale_learned_sigmas=False,
                              timestep_respacing=""):
    betas = gd.get_named_beta_schedule(noise_schedule, steps)
    if use_kl:
        loss_type = gd.LossType.RESCALED_KL
    elif rescale_learned_sigmas:
        loss_type = gd.LossType.RESCALED_MSE
    else:
        loss_type = gd.LossType.MSE
    return gd.GaussianDiffusion(
        betas=betas,
        model_mean_type=(gd.ModelMeanType.EPSILON if not predict_xstart else gd.ModelMeanType.START_X),
        model_var_type=(
            (gd.ModelVarType.FIXED_LARGE if not sigma_small else gd.ModelVarType.FIXED_SMALL)
            if not learn_sigma
            else gd.ModelVarType.LEARNED_RANGE
        ),
        loss_type=loss_type,
        rescale_timesteps=rescale_timesteps,
    )


def add_dict_to_argparser(parser, default_dict):
    for k, v in default_dict.items():
        v_type = type(v)
        if v is None:
            v_type = str
        elif isinstance(v, bool):
            v_type = str2bool
        parser.add_argument(f"--{k}", default=v, type=v_type)


def args_to_dict(args, keys):
    return {k: getattr(args, k) for k in keys}


def str2bool(v):
    if isinstance(v, bool):
        return v
    if v.lower() in ("yes", "true", "t", "y", "1"):
        return True
    elif v.lower() in ("no", "false", "f", "n", "0"):
        return False
    else:
        raise argparse.ArgumentTypeError("boolean value expected")
