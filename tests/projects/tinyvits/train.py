# Modelled on: https://github.com/jaywalnut310/vits
import os
import math
import copy
import torch
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader

import commons
import utils
from data_utils import (
  TextAudioLoader,
  TextAudioCollate,
)
from models import (
  SynthesizerTrn,
  MultiPeriodDiscriminator,
)
from losses import (
  generator_loss,
  discriminator_loss,
  feature_loss,
  kl_loss,
  R1Regularizer,
  calculate_adaptive_weight,
)
from mel_processing import mel_spectrogram_torch, spec_to_mel_torch


CONFIG = {
  "train": {
    "log_interval": 1,
    "eval_interval": 10,
    "seed": 1234,
    "epochs": 100,
    "learning_rate": 2e-3,
    "betas": [0.8, 0.99],
    "eps": 1e-9,
    "batch_size": 4,
    "fp16_run": False,
    "lr_decay": 0.999875,
    "segment_size": 256,
    "c_mel": 45,
    "c_kl": 1.0,
    "r1_gamma": 1.0,
    "adaptive_adv_weight": True,
    "max_steps": 0
  },
  "data": {
    "num_utterances": 40,
    "sampling_rate": 8000,
    "filter_length": 64,
    "hop_length": 16,
    "win_length": 64,
    "n_mel_channels": 20,
    "mel_fmin": 0.0,
    "mel_fmax": None,
    "n_vocab": 16,
    "text_len": 12,
    "frames_per_token": 4
  },
  "model": {
    "inter_channels": 16,
    "hidden_channels": 16,
    "filter_channels": 32,
    "n_layers": 2,
    "kernel_size": 3,
    "p_dropout": 0.1,
    "upsample_rates": [4, 4],
    "upsample_initial_channel": 32,
    "upsample_kernel_sizes": [8, 8],
    "gin_channels": 8,
    "use_spectral_norm": False,
    "periods": [2, 3]
  }
}

global_step = 0


def main(steps=None, config=None):
  """Single-process CPU version of the multi-GPU launcher."""
  global global_step
  config = copy.deepcopy(config or CONFIG)
  if steps is not None:
    config["train"]["max_steps"] = steps
  hps = utils.get_hparams_from_dict(config)
  return run(0, 1, hps)


def run(rank, n_gpus, hps):
  global global_step
  logger = utils.get_logger(hps.model_dir)
  logger.info(hps)
  writer = utils.MemoryWriter(log_dir=hps.model_dir)
  writer_eval = utils.MemoryWriter(log_dir=os.path.join(hps.model_dir, "eval"))

  torch.manual_seed(hps.train.seed)
  device = torch.device("cuda", rank) if torch.cuda.is_available() else torch.device("cpu")

  train_dataset = TextAudioLoader(hps.data.num_utterances, hps.data)
  collate_fn = TextAudioCollate()
  train_loader = DataLoader(train_dataset, num_workers=0, shuffle=True, pin_memory=False,
      collate_fn=collate_fn, batch_size=hps.train.batch_size, drop_last=True)
  eval_dataset = TextAudioLoader(4, hps.data, seed=4321)
  eval_loader = DataLoader(eval_dataset, num_workers=0, shuffle=False,
      batch_size=hps.train.batch_size, pin_memory=False,
      drop_last=False, collate_fn=collate_fn)

  net_g = SynthesizerTrn(
      hps.data.n_vocab,
      hps.data.filter_length // 2 + 1,
      hps.train.segment_size // hps.data.hop_length,
      frames_per_token=hps.data.frames_per_token,
      **hps.model).to(device)
  net_d = MultiPeriodDiscriminator(hps.model.use_spectral_norm, periods=hps.model.periods).to(device)
  # the speaker encoder comes from a speaker-verification checkpoint and is not fine-tuned
  g_params = [p for n, p in net_g.named_parameters() if not n.startswith("spk_enc.")]
  optim_g = torch.optim.AdamW(
      g_params,
      hps.train.learning_rate,
      betas=hps.train.betas,
      eps=hps.train.eps)
  optim_d = torch.optim.AdamW(
      net_d.parameters(),
      hps.train.learning_rate,
      betas=hps.train.betas,
      eps=hps.train.eps)

  epoch_str = 1
  global_step = 0
  if hps.train.max_steps:
    hps.train.epochs = math.ceil(hps.train.max_steps / len(train_loader))

  scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=hps.train.lr_decay, last_epoch=epoch_str-2)
  scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=hps.train.lr_decay, last_epoch=epoch_str-2)

  scaler = torch.amp.GradScaler(device.type, enabled=hps.train.fp16_run)
  r1_reg = R1Regularizer(hps.train.r1_gamma)

  for epoch in range(epoch_str, hps.train.epochs + 1):
    train_and_evaluate(rank, epoch, hps, [net_g, net_d], [optim_g, optim_d], [scheduler_g, scheduler_d], scaler, [train_loader, eval_loader], logger, [writer, writer_eval], r1_reg, device)
    scheduler_g.step()
    scheduler_d.step()
    if hps.train.max_steps and global_step >= hps.train.max_steps:
      break

  writer.flush()
  return {"net_g": net_g, "net_d": net_d, "writer": writer, "writer_eval": writer_eval, "r1": r1_reg,
          "optim_g": optim_g, "optim_d": optim_d}


def train_and_evaluate(rank, epoch, hps, nets, optims, schedulers, scaler, loaders, logger, writers, r1_reg, device):
  net_g, net_d = nets
  optim_g, optim_d = optims
  scheduler_g, scheduler_d = schedulers
  train_loader, eval_loader = loaders
  if writers is not None:
    writer, writer_eval = writers

  global global_step

  net_g.train()
  net_d.train()
  for batch_idx, (x, x_lengths, spec, spec_lengths, y, y_lengths) in enumerate(train_loader):
    x, x_lengths = x.to(device, non_blocking=True), x_lengths.to(device, non_blocking=True)
    spec, spec_lengths = spec.to(device, non_blocking=True), spec_lengths.to(device, non_blocking=True)
    y, y_lengths = y.to(device, non_blocking=True), y_lengths.to(device, non_blocking=True)

    with torch.autocast(device.type, enabled=hps.train.fp16_run):
      y_hat, l_length, attn, ids_slice, x_mask, z_mask,\
      (z, z_p, m_p, logs_p, m_q, logs_q) = net_g(x, x_lengths, spec, spec_lengths)

      mel = spec_to_mel_torch(
          spec,
          hps.data.filter_length,
          hps.data.n_mel_channels,
          hps.data.sampling_rate,
          hps.data.mel_fmin,
          hps.data.mel_fmax)
      y_mel = commons.slice_segments(mel, ids_slice, hps.train.segment_size // hps.data.hop_length)
      y_hat_mel = mel_spectrogram_torch(
          y_hat.squeeze(1),
          hps.data.filter_length,
          hps.data.n_mel_channels,
          hps.data.sampling_rate,
          hps.data.hop_length,
          hps.data.win_length,
          hps.data.mel_fmin,
          hps.data.mel_fmax
      )

      y = commons.slice_segments(y, ids_slice * hps.data.hop_length, hps.train.segment_size) # slice
      y.requires_grad_(hps.train.r1_gamma > 0)

      # Discriminator
      y_d_hat_r, y_d_hat_g, _, _ = net_d(y, y_hat.detach())
      with torch.autocast(device.type, enabled=False):
        loss_disc, losses_disc_r, losses_disc_g = discriminator_loss(y_d_hat_r, y_d_hat_g)
        loss_r1 = r1_reg(y_d_hat_r, y)
        loss_disc_all = loss_disc + loss_r1
    optim_d.zero_grad()
    scaler.scale(loss_disc_all).backward()
    scaler.unscale_(optim_d)
    grad_norm_d = commons.clip_grad_value_(net_d.parameters(), None)
    scaler.step(optim_d)

    y = y.detach()
    with torch.autocast(device.type, enabled=hps.train.fp16_run):
      # Generator
      y_d_hat_r, y_d_hat_g, fmap_r, fmap_g = net_d(y, y_hat)
      with torch.autocast(device.type, enabled=False):
        loss_dur = torch.sum(l_length.float())
        loss_mel = F.l1_loss(y_mel, y_hat_mel) * hps.train.c_mel
        loss_kl = kl_loss(z_p, logs_q, m_p, logs_p, z_mask) * hps.train.c_kl

        loss_fm = feature_loss(fmap_r, fmap_g)
        loss_gen, losses_gen = generator_loss(y_d_hat_g)
        if hps.train.adaptive_adv_weight:
          adv_weight = calculate_adaptive_weight(loss_mel, loss_gen, net_g.dec.conv_post.weight)
        else:
          adv_weight = 1.0
        loss_gen_all = adv_weight * loss_gen + loss_fm + loss_mel + loss_dur + loss_kl
    optim_g.zero_grad()
    scaler.scale(loss_gen_all).backward(create_graph=True)  # known-miss: TLK302
    scaler.unscale_(optim_g)
    grad_norm_g = commons.clip_grad_value_(net_g.parameters(), None)
    scaler.step(optim_g)
    scaler.update()

    if rank==0:
      if global_step % hps.train.log_interval == 0:
        lr = optim_g.param_groups[0]['lr']
        losses = [loss_disc, loss_gen, loss_fm, loss_mel, loss_dur, loss_kl]
        logger.info('Train Epoch: {} [{:.0f}%]'.format(
          epoch,
          100. * batch_idx / len(train_loader)))
        logger.info([x.item() for x in losses] + [global_step, lr])

        scalar_dict = {"loss/g/total": loss_gen_all, "loss/d/total": loss_disc_all, "learning_rate": lr, "grad_norm_d": grad_norm_d, "grad_norm_g": grad_norm_g}
        scalar_dict.update({"loss/g/fm": loss_fm, "loss/g/mel": loss_mel, "loss/g/dur": loss_dur, "loss/g/kl": loss_kl, "loss/d/r1": loss_r1, "grad/r1_norm": r1_reg.last_norm()})

        scalar_dict.update({"loss/g/{}".format(i): v for i, v in enumerate(losses_gen)})
        scalar_dict.update({"loss/d_r/{}".format(i): v for i, v in enumerate(losses_disc_r)})
        scalar_dict.update({"loss/d_g/{}".format(i): v for i, v in enumerate(losses_disc_g)})
        image_dict = {
            "slice/mel_org": y_mel[0].data.cpu(),
            "slice/mel_gen": y_hat_mel[0].data.cpu(),
            "all/mel": mel[0].data.cpu(),
            "all/attn": attn[0,0].data.cpu()
        }
        utils.summarize(  # expect: TLK301 (the writer keeps every scalar it is given, r1_reg.last_norm() among them: a norm of a create_graph gradient; reported at this call, the writer being in utils.py)
          writer=writer,
          global_step=global_step,
          images=image_dict,
          scalars=scalar_dict)

      if global_step % hps.train.eval_interval == 0:
        evaluate(hps, net_g, eval_loader, writer_eval, device)
        utils.save_checkpoint(net_g, optim_g, hps.train.learning_rate, epoch, os.path.join(hps.model_dir, "G_{}.pth".format(global_step)))
        utils.save_checkpoint(net_d, optim_d, hps.train.learning_rate, epoch, os.path.join(hps.model_dir, "D_{}.pth".format(global_step)))
    global_step += 1
    if hps.train.max_steps and global_step >= hps.train.max_steps:
      break

  if rank == 0:
    logger.info('====> Epoch: {}'.format(epoch))


def evaluate(hps, generator, eval_loader, writer_eval, device):
    generator.eval()
    with torch.no_grad():
      for batch_idx, (x, x_lengths, spec, spec_lengths, y, y_lengths) in enumerate(eval_loader):
        x, x_lengths = x.to(device), x_lengths.to(device)
        spec, spec_lengths = spec.to(device), spec_lengths.to(device)
        y, y_lengths = y.to(device), y_lengths.to(device)

        # remove else
        x = x[:1]
        x_lengths = x_lengths[:1]
        spec = spec[:1]
        spec_lengths = spec_lengths[:1]
        y = y[:1]
        y_lengths = y_lengths[:1]
        break
      y_hat, attn, mask, *_ = generator.infer(x, x_lengths, spec, spec_lengths, max_len=1000)
      y_hat_lengths = mask.sum([1,2]).long() * hps.data.hop_length

      mel = spec_to_mel_torch(
        spec,
        hps.data.filter_length,
        hps.data.n_mel_channels,
        hps.data.sampling_rate,
        hps.data.mel_fmin,
        hps.data.mel_fmax)
      y_hat_mel = mel_spectrogram_torch(
        y_hat.squeeze(1).float(),
        hps.data.filter_length,
        hps.data.n_mel_channels,
        hps.data.sampling_rate,
        hps.data.hop_length,
        hps.data.win_length,
        hps.data.mel_fmin,
        hps.data.mel_fmax
      )
      mel_err = F.l1_loss(y_hat_mel[..., :mel.size(-1)], mel[..., :y_hat_mel.size(-1)]).item()
    image_dict = {
      "gen/mel": y_hat_mel[0].cpu()
    }
    audio_dict = {
      "gen/audio": y_hat[0,:,:y_hat_lengths[0]]
    }
    if global_step == 0:
      image_dict.update({"gt/mel": mel[0].cpu()})
      audio_dict.update({"gt/audio": y[0,:,:y_lengths[0]]})

    utils.summarize(
      writer=writer_eval,
      global_step=global_step,
      images=image_dict,
      audios=audio_dict,
      scalars={"eval/mel_l1": mel_err},
      audio_sampling_rate=hps.data.sampling_rate
    )
    generator.train()


if __name__ == "__main__":
  out = main(steps=20)
  mels = [float(v) for _, v in out["writer"].scalars["loss/g/mel"]]
  print("mel loss first/last:", mels[:3], mels[-3:])
