"""Trainer from lucidrains/stylegan2-pytorch (stylegan2_pytorch.py, class Trainer), single process."""
import math
from functools import partial
from math import floor
from pathlib import Path
from random import random

import torch
from torch.utils import data

from stylegan2_pytorch.data import Dataset
from stylegan2_pytorch.helpers import (NanException, cycle, default, evaluate_in_chunks, exists,
                                       gradient_accumulate_contexts, image_noise, is_empty,
                                       latent_to_w, loss_backwards, mixed_list, noise, noise_list,
                                       raise_if_nan, styles_def_to_tensor, EMA)
from stylegan2_pytorch.loggers import Session
from stylegan2_pytorch.losses import (calc_pl_lengths, dual_contrastive_loss, gen_hinge_loss,
                                      gradient_penalty, hinge_loss)
from stylegan2_pytorch.networks import StyleGAN2


class Trainer():
    def __init__(
        self,
        name='default',
        results_dir='results',
        models_dir='models',
        base_dir='./',
        image_size=128,
        network_capacity=16,
        fmap_max=512,
        transparent=False,
        batch_size=4,
        mixed_prob=0.9,
        gradient_accumulate_every=1,
        lr=2e-4,
        lr_mlp=0.1,
        ttur_mult=2,
        rel_disc_loss=False,
        num_workers=None,
        save_every=1000,
        evaluate_every=1000,
        num_image_tiles=8,
        trunc_psi=0.6,
        no_pl_reg=False,
        pl_start=5000,
        pl_every=32,
        gp_every=4,
        ema_start=20000,
        ema_every=10,
        latent_dim=512,
        style_depth=8,
        aug_prob=0.,
        aug_types=['translation', 'cutout'],
        top_k_training=False,
        generator_top_k_gamma=0.99,
        generator_top_k_frac=0.5,
        dual_contrast_loss=False,
        log=False,
        rank=0,
        world_size=1,
        *args,
        **kwargs
    ):
        self.GAN_params = [args, kwargs]
        self.GAN = None

        self.name = name
        base_dir = Path(base_dir)
        self.results_dir = base_dir / results_dir
        self.models_dir = base_dir / models_dir

        assert math.log2(image_size).is_integer(), 'image size must be a power of 2 (64, 128, 256, 512, 1024)'
        self.image_size = image_size
        self.network_capacity = network_capacity
        self.fmap_max = fmap_max
        self.transparent = transparent
        self.latent_dim = latent_dim
        self.style_depth = style_depth

        self.aug_prob = aug_prob
        self.aug_types = aug_types

        self.lr = lr
        self.lr_mlp = lr_mlp
        self.ttur_mult = ttur_mult
        self.rel_disc_loss = rel_disc_loss
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.mixed_prob = mixed_prob

        self.num_image_tiles = num_image_tiles
        self.evaluate_every = evaluate_every
        self.save_every = save_every
        self.steps = 0

        self.av = None
        self.trunc_psi = trunc_psi

        self.no_pl_reg = no_pl_reg
        self.pl_start = pl_start
        self.pl_every = pl_every
        self.gp_every = gp_every
        self.ema_start = ema_start
        self.ema_every = ema_every
        self.pl_mean = None

        self.gradient_accumulate_every = gradient_accumulate_every

        self.d_loss = 0
        self.g_loss = 0
        self.q_loss = None
        self.last_gp_loss = None
        self.last_cr_loss = None
        self.last_fid = None
        self.last_samples = None

        self.pl_length_ma = EMA(0.99)
        self.init_folders = False

        self.loader = None
        self.dataset = None

        self.top_k_training = top_k_training
        self.generator_top_k_gamma = generator_top_k_gamma
        self.generator_top_k_frac = generator_top_k_frac

        self.dual_contrast_loss = dual_contrast_loss

        self.is_main = rank == 0
        self.rank = rank
        self.world_size = world_size
        self.is_ddp = world_size > 1
        self.device = torch.device('cpu')

        self.logger = Session(experiment=name) if log else None

    @property
    def hparams(self):
        return {'image_size': self.image_size, 'network_capacity': self.network_capacity}

    def init_GAN(self):
        args, kwargs = self.GAN_params
        self.GAN = StyleGAN2(lr=self.lr, lr_mlp=self.lr_mlp, ttur_mult=self.ttur_mult,
                             image_size=self.image_size, network_capacity=self.network_capacity,
                             fmap_max=self.fmap_max, transparent=self.transparent,
                             latent_dim=self.latent_dim, style_depth=self.style_depth,
                             rank=self.rank, *args, **kwargs)
        if exists(self.logger):
            self.logger.set_params(self.hparams)

    def set_data_src(self, num_images):
        self.dataset = Dataset(num_images, self.image_size, transparent=self.transparent,
                               aug_prob=self.aug_prob)
        num_workers = default(self.num_workers, 0)
        dataloader = data.DataLoader(self.dataset, num_workers=num_workers,
                                     batch_size=math.ceil(self.batch_size / self.world_size),
                                     shuffle=True, drop_last=True, pin_memory=False)
        self.loader = cycle(dataloader)

    def train(self):
        assert exists(self.loader), 'You must first initialize the data source with `.set_data_src(<folder of images>)`'

        if not exists(self.GAN):
            self.init_GAN()

        self.GAN.train()
        total_disc_loss = torch.tensor(0.).to(self.device)
        total_gen_loss = torch.tensor(0.).to(self.device)

        batch_size = math.ceil(self.batch_size / self.world_size)

        image_size = self.GAN.G.image_size
        latent_dim = self.GAN.G.latent_dim
        num_layers = self.GAN.G.num_layers

        aug_prob = self.aug_prob
        aug_types = self.aug_types
        aug_kwargs = {'prob': aug_prob, 'types': aug_types}

        apply_gradient_penalty = self.steps % self.gp_every == 0
        apply_path_penalty = not self.no_pl_reg and self.steps > self.pl_start and self.steps % self.pl_every == 0

        S = self.GAN.S
        G = self.GAN.G
        D = self.GAN.D
        D_aug = self.GAN.D_aug

        backwards = partial(loss_backwards, self.GAN.fp16)

        # setup losses

        if not self.dual_contrast_loss:
            D_loss_fn = hinge_loss
            G_loss_fn = gen_hinge_loss
            G_requires_reals = False
        else:
            D_loss_fn = dual_contrastive_loss
            G_loss_fn = dual_contrastive_loss
            G_requires_reals = True

        # train discriminator

        avg_pl_length = self.pl_mean
        self.GAN.D_opt.zero_grad()

        for i in gradient_accumulate_contexts(self.gradient_accumulate_every, self.is_ddp, ddps=[D_aug, S, G]):
            get_latents_fn = mixed_list if random() < self.mixed_prob else noise_list
            style = get_latents_fn(batch_size, num_layers, latent_dim, device=self.device)
            noise = image_noise(batch_size, image_size, device=self.device)

            w_space = latent_to_w(S, style)
            w_styles = styles_def_to_tensor(w_space)

            generated_images = G(w_styles, noise)
            generated_images, (fake_output, fake_q_loss) = D_aug(
                generated_images.clone().detach(), return_aug_images=True,
                input_requires_grad=apply_gradient_penalty, detach=True, **aug_kwargs)

            image_batch = next(self.loader).to(self.device)

            if apply_gradient_penalty:
                image_batch.requires_grad_()

            real_output, real_q_loss = D_aug(image_batch, **aug_kwargs)

            real_output_loss = real_output
            fake_output_loss = fake_output

            if self.rel_disc_loss:
                real_output_loss = real_output_loss - fake_output.mean()
                fake_output_loss = fake_output_loss - real_output.mean()

            divergence = D_loss_fn(fake_output_loss, real_output_loss)
            disc_loss = divergence

            if apply_gradient_penalty:
                gp = gradient_penalty(image_batch, real_output) + gradient_penalty(generated_images, fake_output)
                self.last_gp_loss = gp.clone().detach().item()
                self.track(gp, 'GP')  # expect: TLK301
                disc_loss = disc_loss + gp

            disc_loss = disc_loss / self.gradient_accumulate_every
            disc_loss.register_hook(raise_if_nan)
            backwards(disc_loss, self.GAN.D_opt, loss_id=1)

            total_disc_loss += divergence.detach().item() / self.gradient_accumulate_every

        self.d_loss = float(total_disc_loss)
        self.track(self.d_loss, 'D')

        self.GAN.D_opt.step()

        # train generator

        self.GAN.G_opt.zero_grad()

        for i in gradient_accumulate_contexts(self.gradient_accumulate_every, self.is_ddp, ddps=[S, G, D_aug]):
            style = get_latents_fn(batch_size, num_layers, latent_dim, device=self.device)
            noise = image_noise(batch_size, image_size, device=self.device)

            w_space = latent_to_w(S, style)
            w_styles = styles_def_to_tensor(w_space)

            generated_images = G(w_styles, noise)
            fake_output, _ = D_aug(generated_images, **aug_kwargs)
            fake_output_loss = fake_output

            real_output = None
            if G_requires_reals:
                image_batch = next(self.loader).to(self.device)
                real_output, _ = D_aug(image_batch, detach=True, **aug_kwargs)
                real_output = real_output.detach()

            if self.top_k_training:
                epochs = (self.steps * batch_size * self.gradient_accumulate_every) / len(self.dataset)
                k_frac = max(self.generator_top_k_gamma ** epochs, self.generator_top_k_frac)
                k = math.ceil(batch_size * k_frac)

                if k != batch_size:
                    fake_output_loss, _ = fake_output_loss.topk(k=k, largest=False)

            loss = G_loss_fn(fake_output_loss, real_output)
            gen_loss = loss

            if apply_path_penalty:
                pl_lengths = calc_pl_lengths(w_styles, generated_images)
                avg_pl_length = pl_lengths.detach().mean().item()

                if not is_empty(self.pl_mean):
                    pl_loss = ((pl_lengths - self.pl_mean) ** 2).mean()
                    if not torch.isnan(pl_loss):
                        gen_loss = gen_loss + pl_loss

            gen_loss = gen_loss / self.gradient_accumulate_every
            gen_loss.register_hook(raise_if_nan)
            backwards(gen_loss, self.GAN.G_opt, loss_id=2)

            total_gen_loss += loss.detach().item() / self.gradient_accumulate_every

        self.g_loss = float(total_gen_loss)
        self.track(self.g_loss, 'G')

        self.GAN.G_opt.step()

        # calculate moving averages

        if apply_path_penalty and not math.isnan(avg_pl_length):
            self.pl_mean = self.pl_length_ma.update_average(self.pl_mean, avg_pl_length)
            self.track(self.pl_mean, 'PL')

        if self.is_main and self.steps % self.ema_every == 0 and self.steps > self.ema_start:
            self.GAN.EMA()

        if self.is_main and self.steps <= 25000 and self.steps % 1000 == 2:
            self.GAN.reset_parameter_averaging()

        # save from NaN errors

        if any(torch.isnan(l) for l in (total_gen_loss, total_disc_loss)):
            print(f'NaN detected for generator or discriminator.')
            raise NanException

        # periodically evaluate

        if self.is_main:
            if self.steps % self.evaluate_every == 0:
                self.evaluate(floor(self.steps / self.evaluate_every))

        self.steps += 1
        self.av = None

    @torch.no_grad()
    def evaluate(self, num=0, trunc=1.0):
        self.GAN.eval()
        num_rows = self.num_image_tiles

        latent_dim = self.GAN.G.latent_dim
        image_size = self.GAN.G.image_size
        num_layers = self.GAN.G.num_layers

        # latents and noise
        latents = noise_list(num_rows ** 2, num_layers, latent_dim, device=self.device)
        n = image_noise(num_rows ** 2, image_size, device=self.device)

        # moving averages
        generated_images = self.generate_truncated(self.GAN.SE, self.GAN.GE, latents, n, trunc_psi=self.trunc_psi)
        self.last_samples = generated_images
        self.GAN.train()
        return generated_images

    @torch.no_grad()
    def truncate_style(self, tensor, trunc_psi=0.75):
        S = self.GAN.S
        batch_size = self.batch_size
        latent_dim = self.GAN.G.latent_dim

        if not exists(self.av):
            z = noise(2000, latent_dim, device=self.device)
            samples = evaluate_in_chunks(batch_size, S, z).cpu()
            self.av = samples.mean(dim=0, keepdim=True)

        av_torch = self.av.to(self.device)
        tensor = trunc_psi * (tensor - av_torch) + av_torch
        return tensor

    @torch.no_grad()
    def truncate_style_defs(self, w, trunc_psi=0.75):
        w_space = []
        for tensor, num_layers in w:
            tensor = self.truncate_style(tensor, trunc_psi=trunc_psi)
            w_space.append((tensor, num_layers))
        return w_space

    @torch.no_grad()
    def generate_truncated(self, S, G, style, noi, trunc_psi=0.75, num_image_tiles=8):
        w = map(lambda t: (S(t[0]), t[1]), style)
        w_truncated = self.truncate_style_defs(w, trunc_psi=trunc_psi)
        w_styles = styles_def_to_tensor(w_truncated)
        generated_images = evaluate_in_chunks(self.batch_size, G, w_styles, noi)
        return generated_images.clamp_(0., 1.)

    def print_log(self):
        data = [
            ('G', self.g_loss),
            ('D', self.d_loss),
            ('GP', self.last_gp_loss),
            ('PL', self.pl_mean),
        ]
        data = filter(lambda t: t[1] is not None, data)
        return ' | '.join(map(lambda n: f'{n[0]}: {n[1]:.2f}', data))

    def track(self, value, name):
        if not exists(self.logger):
            return
        self.logger.track(value, name=name)
