"""HiFi-GAN training entry point (tiny CPU configuration).

Modelled on https://github.com/jik876/hifi-gan/blob/master/train.py
main(steps) trains the generator / MPD / MSD for `steps` iterations and returns a dict.
"""
import warnings
warnings.simplefilter(action='ignore', category=FutureWarning)
import itertools
import json
import os
import time

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from hifigan.env import AttrDict
from hifigan.meldataset import MelDataset, mel_spectrogram, get_dataset_filelist
from hifigan.models import Generator, MultiPeriodDiscriminator, MultiScaleDiscriminator, feature_loss, \
    generator_loss, discriminator_loss
from hifigan.utils import SummaryWriter, summarize

HERE = os.path.dirname(os.path.abspath(__file__))


def train(rank, a, h):
    torch.manual_seed(h.seed)
    device = torch.device('cpu')

    generator = Generator(h).to(device)
    mpd = MultiPeriodDiscriminator(d_mult=h.discriminator_d_mult).to(device)
    msd = MultiScaleDiscriminator(d_mult=h.discriminator_d_mult).to(device)

    steps = 0
    last_epoch = -1

    optim_g = torch.optim.AdamW(generator.parameters(), h.learning_rate, betas=[h.adam_b1, h.adam_b2])
    optim_d = torch.optim.AdamW(itertools.chain(msd.parameters(), mpd.parameters()),
                                h.learning_rate, betas=[h.adam_b1, h.adam_b2])

    scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=h.lr_decay, last_epoch=last_epoch)
    scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=h.lr_decay, last_epoch=last_epoch)

    training_filelist, validation_filelist = get_dataset_filelist(n_train=64, n_valid=1)

    trainset = MelDataset(training_filelist, h.segment_size, h.n_fft, h.num_mels,
                          h.hop_size, h.win_size, h.sampling_rate, h.fmin, h.fmax, n_cache_reuse=0,
                          shuffle=True, fmax_loss=h.fmax_for_loss, device=device)
    train_loader = DataLoader(trainset, num_workers=h.num_workers, shuffle=False,
                              sampler=None, batch_size=h.batch_size, drop_last=True)

    validset = MelDataset(validation_filelist, h.segment_size, h.n_fft, h.num_mels,
                          h.hop_size, h.win_size, h.sampling_rate, h.fmin, h.fmax, False, False, n_cache_reuse=0,
                          fmax_loss=h.fmax_for_loss, device=device)
    validation_loader = DataLoader(validset, num_workers=0, shuffle=False,
                                   sampler=None, batch_size=1, drop_last=True)

    sw = SummaryWriter(os.path.join(a.checkpoint_path, 'logs'))

    running_gen_loss = 0.0
    mel_error = float('nan')
    val_err = float('nan')

    generator.train()
    mpd.train()
    msd.train()
    for epoch in range(max(0, last_epoch), a.training_epochs):
        start = time.time()

        for i, batch in enumerate(train_loader):
            start_b = time.time()
            x, y, _, y_mel = batch
            x = x.to(device)
            y = y.to(device)
            y_mel = y_mel.to(device)
            y = y.unsqueeze(1)

            y_g_hat = generator(x)
            y_g_hat_mel = mel_spectrogram(y_g_hat.squeeze(1), h.n_fft, h.num_mels, h.sampling_rate, h.hop_size,
                                          h.win_size, h.fmin, h.fmax_for_loss)

            optim_d.zero_grad()

            # MPD
            y_df_hat_r, y_df_hat_g, _, _ = mpd(y, y_g_hat.detach())
            loss_disc_f, losses_disc_f_r, losses_disc_f_g = discriminator_loss(y_df_hat_r, y_df_hat_g)

            # MSD
            y_ds_hat_r, y_ds_hat_g, _, _ = msd(y, y_g_hat.detach())
            loss_disc_s, losses_disc_s_r, losses_disc_s_g = discriminator_loss(y_ds_hat_r, y_ds_hat_g)

            loss_disc_all = loss_disc_s + loss_disc_f

            loss_disc_all.backward()
            optim_d.step()

            # Generator
            optim_g.zero_grad()

            # L1 Mel-Spectrogram Loss
            loss_mel = F.l1_loss(y_mel, y_g_hat_mel) * 45

            y_df_hat_r, y_df_hat_g, fmap_f_r, fmap_f_g = mpd(y, y_g_hat)
            y_ds_hat_r, y_ds_hat_g, fmap_s_r, fmap_s_g = msd(y, y_g_hat)
            loss_fm_f = feature_loss(fmap_f_r, fmap_f_g)
            loss_fm_s = feature_loss(fmap_s_r, fmap_s_g)
            loss_gen_f, losses_gen_f = generator_loss(y_df_hat_g)
            loss_gen_s, losses_gen_s = generator_loss(y_ds_hat_g)
            loss_gen_all = loss_gen_s + loss_gen_f + loss_fm_s + loss_fm_f + loss_mel

            loss_gen_all.backward()
            optim_g.step()

            running_gen_loss += loss_gen_all  # expect: TLK101

            if rank == 0:
                # STDOUT logging
                if steps % a.stdout_interval == 0:
                    with torch.no_grad():
                        mel_error = F.l1_loss(y_mel, y_g_hat_mel).item()

                    print('Steps : {:d}, Gen Loss Total : {:4.3f}, Mel-Spec. Error : {:4.3f}, s/b : {:4.3f}'.
                          format(steps, loss_gen_all, mel_error, time.time() - start_b))

                # Tensorboard summary logging
                if steps % a.summary_interval == 0:
                    summarize(sw, steps, scalars={  # known-false: TLK102 (the author marked this leak at another line)
                        "training/gen_loss_total": loss_gen_all,
                        "training/mel_spec_error": mel_error,
                        "training/disc_loss_total": sum(losses_disc_f_r) + sum(losses_disc_s_r),
                    })

                # Validation
                if steps % a.validation_interval == 0:
                    generator.eval()
                    val_err_tot = 0
                    with torch.no_grad():
                        for j, batch in enumerate(validation_loader):
                            x, y, _, y_mel = batch
                            y_g_hat = generator(x.to(device))
                            y_mel = y_mel.to(device)
                            y_g_hat_mel = mel_spectrogram(y_g_hat.squeeze(1), h.n_fft, h.num_mels, h.sampling_rate,
                                                          h.hop_size, h.win_size,
                                                          h.fmin, h.fmax_for_loss)
                            val_err_tot += F.l1_loss(y_mel, y_g_hat_mel)

                            if j <= 4:
                                summarize(sw, steps, audios={'generated/y_hat_{}'.format(j): y_g_hat[0]},
                                          audio_sampling_rate=h.sampling_rate)

                        val_err = val_err_tot / (j+1)
                        summarize(sw, steps, scalars={"validation/mel_spec_error": val_err})

                    generator.train()

            steps += 1
            if steps >= a.training_steps:
                break

        scheduler_g.step()
        scheduler_d.step()

        if rank == 0:
            print('Time taken for epoch {} is {} sec\n'.format(epoch + 1, int(time.time() - start)))
        if steps >= a.training_steps:
            break

    return {
        "steps": steps,
        "mean_gen_loss": running_gen_loss / max(steps, 1),
        "mel_error": mel_error,
        "val_err": val_err,
        "writer": sw,
    }


def main(steps=10):
    print('Initializing Training Process..')
    a = AttrDict(
        checkpoint_path=os.path.join(HERE, 'cp_hifigan'),
        config=os.path.join(HERE, 'config_tiny.json'),
        training_epochs=3100,
        training_steps=steps,
        stdout_interval=10,
        summary_interval=1,
        validation_interval=10,
    )
    with open(a.config) as f:
        data = f.read()
    json_config = json.loads(data)
    h = AttrDict(json_config)

    torch.manual_seed(h.seed)
    torch.set_num_threads(1)
    return train(0, a, h)


if __name__ == '__main__':
    out = main(10)
    print({k: v for k, v in out.items() if k != "writer"})
