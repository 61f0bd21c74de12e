from .base import *
from .beta_vae import *

# Aliases
VAE = BetaVAE

vae_models = {"BetaVAE": BetaVAE}
