from .gaussian_diffusion import GaussianDiffusion, get_named_beta_schedule
from .unet import UNetModel


def model_and_diffusion_defaults():
    return dict(
        image_size=8,
        num_channels=16,
        num_res_blocks=1,
        dropout=0.0,
        diffusion_steps=100,
        noise_schedule="linear",
        jac_reg_weight=0.01,
    )


def create_model_and_diffusion(
    image_size,
    num_channels,
    num_res_blocks,
    dropout,
    diffusion_steps,
    noise_schedule,
    jac_reg_weight,
):
    model = UNetModel(
        in_channels=3,
        model_channels=num_channels,
        out_channels=3,
        num_res_blocks=num_res_blocks,
        dropout=dropout,
    )
    diffusion = GaussianDiffusion(
        betas=get_named_beta_schedule(noise_schedule, diffusion_steps),
        jac_reg_weight=jac_reg_weight,
    )
    return model, diffusion


def args_to_dict(args, keys):
    return {k: args[k] for k in keys}
