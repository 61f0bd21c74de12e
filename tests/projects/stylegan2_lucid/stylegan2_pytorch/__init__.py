from stylegan2_pytorch.networks import StyleGAN2, Generator, Discriminator
from stylegan2_pytorch.trainer import Trainer, NanException
