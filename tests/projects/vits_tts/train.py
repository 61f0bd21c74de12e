# Layout modelled on jaywalnut310/vits (train.py): train_and_evaluate alternates a discriminator
# step on the detached generator output and a generator step on the adversarial, feature-matching,
# mel, duration and KL losses, logs every log_interval steps through utils.summarize, and
# evaluates under no_grad. Reduced: one process, no AMP, the mel transform left out (the L1 term
# compares waveforms), hparams as a plain namespace.
import torch
from torch.nn import functional as F

import commons
import utils
from losses import discriminator_loss, feature_loss, generator_loss, kl_loss
from models import MultiPeriodDiscriminator, SynthesizerTrn

global_step = 0


def run(hps, train_loader, eval_loader):
  net_g = SynthesizerTrn(hps.n_vocab, hps.spec_channels, hps.segment_size // hps.hop_length, hop_length=hps.hop_length)
  net_d = MultiPeriodDiscriminator()
  optim_g = torch.optim.AdamW(net_g.parameters(), hps.learning_rate, betas=hps.betas)
  optim_d = torch.optim.AdamW(net_d.parameters(), hps.learning_rate, betas=hps.betas)
  scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=hps.lr_decay)
  scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=hps.lr_decay)
  epoch_means = []
  for epoch in range(1, hps.epochs + 1):
    epoch_means.append(train_and_evaluate(epoch, hps, [net_g, net_d], [optim_g, optim_d], [train_loader, eval_loader], None))
    scheduler_g.step()
    scheduler_d.step()
  return net_g, epoch_means


def train_and_evaluate(epoch, hps, nets, optims, loaders, writer):
  net_g, net_d = nets
  optim_g, optim_d = optims
  train_loader, eval_loader = loaders
  global global_step

  net_g.train()
  net_d.train()
  tracker = utils.LossTracker()
  for batch_idx, (x, x_lengths, spec, spec_lengths, y, y_lengths) in enumerate(train_loader):
    y_hat, l_length, ids_slice, z_mask, (z, z_p, m_p, logs_p, m_q, logs_q) = net_g(x, x_lengths, spec, spec_lengths)
    y = commons.slice_segments(y, ids_slice * hps.hop_length, hps.segment_size)

    # Discriminator
    y_d_hat_r, y_d_hat_g, _, _ = net_d(y, y_hat.detach())
    loss_disc, losses_disc_r, losses_disc_g = discriminator_loss(y_d_hat_r, y_d_hat_g)
    optim_d.zero_grad()
    loss_disc.backward()
    grad_norm_d = commons.clip_grad_value_(net_d.parameters(), None)
    optim_d.step()

    # Generator
    y_d_hat_r, y_d_hat_g, fmap_r, fmap_g = net_d(y, y_hat)
    loss_dur = torch.sum(l_length.float())
    loss_mel = F.l1_loss(y, y_hat) * hps.c_mel
    loss_kl = kl_loss(z_p, logs_q, m_p, logs_p, z_mask) * hps.c_kl
    loss_fm = feature_loss(fmap_r, fmap_g)
    loss_gen, losses_gen = generator_loss(y_d_hat_g)
    loss_gen_all = loss_gen + loss_fm + loss_mel + loss_dur + loss_kl
    optim_g.zero_grad()
    loss_gen_all.backward()
    grad_norm_g = commons.clip_grad_value_(net_g.parameters(), None)
    optim_g.step()

    # Measured under torch 2.13 CPU (batches of 2, 12 frames; 1, 10, 20 steps): the tracker's
    # totals keep 57 -> 471 -> 931 autograd nodes (+46 per step; the backward freed their saved
    # tensors, not the nodes); none with loss_mel.item() and loss_kl.item(), none from
    # evaluate()'s add under no_grad.
    tracker.add(mel=loss_mel, kl=loss_kl)  # expect: TLK101 (LossTracker.add in utils.py sums its keyword arguments into self.totals[name])

    if global_step % hps.log_interval == 0:
      lr = optim_g.param_groups[0]["lr"]
      losses = [loss_disc, loss_gen, loss_fm, loss_mel, loss_dur, loss_kl]
      utils.logger.info([x.item() for x in losses] + [global_step, lr])
      scalar_dict = {"loss/g/total": loss_gen_all.item(), "loss/d/total": loss_disc.item(), "learning_rate": lr, "grad_norm_d": grad_norm_d, "grad_norm_g": grad_norm_g}
      scalar_dict.update({"loss/d_r/{}".format(i): v for i, v in enumerate(losses_disc_r)})
      scalar_dict.update({"loss/d_g/{}".format(i): v for i, v in enumerate(losses_disc_g)})
      scalar_dict.update({"loss/g/{}".format(i): v for i, v in enumerate(losses_gen)})
      # Measured (same runs, log_interval 1): utils.SCALAR_HISTORY keeps 74 -> 524 -> 1,024
      # autograd nodes through the "loss/g/i" entries (+50 per logged step); its other entries
      # none; none when generator_loss's terms are logged with .item().
      utils.summarize(writer=writer, global_step=global_step, scalars=scalar_dict)  # expect: TLK102 (generator_loss's list reaches scalar_dict, summarize in utils.py appends it to SCALAR_HISTORY)

    global_step += 1

  evaluate(hps, net_g, eval_loader, writer, tracker)
  return tracker.means()


def evaluate(hps, generator, eval_loader, writer_eval, tracker):
  generator.eval()
  with torch.no_grad():
    for x, x_lengths, spec, spec_lengths, y, y_lengths in eval_loader:
      y_hat, l_length, ids_slice, z_mask, _ = generator(x, x_lengths, spec, spec_lengths)
      y = commons.slice_segments(y, ids_slice * hps.hop_length, hps.segment_size)
      loss_mel = F.l1_loss(y, y_hat) * hps.c_mel
      tracker.add(eval_mel=loss_mel)  # clean: under no_grad
      utils.summarize(writer=writer_eval, global_step=global_step, scalars={"loss/eval/mel": loss_mel})  # clean: under no_grad
  generator.train()
