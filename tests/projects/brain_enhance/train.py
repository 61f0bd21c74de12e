#!/usr/bin/env/python3
# Modelled on: https://github.com/speechbrain/speechbrain/blob/develop/templates/enhancement/train.py
"""Recipe for training a speech enhancement system with spectral masking.

Layout follows the SpeechBrain recipe templates: a Brain subclass in the recipe
script, the model in custom_model.py, hyperparameters in hparams.py (train.yaml),
the data pipeline in dataio.py.
"""

import torch

import losses
from core import Brain, Stage
from dataio import dataio_prep
from hparams import load_hparams
from metric_stats import AverageMeter, ErrorStats, MetricStats
from processing import spectral_magnitude


class SEBrain(Brain):
    """Class that manages the training loop. See core.Brain."""

    def compute_forward(self, batch, stage):
        """Apply masking to convert from noisy waveforms to enhanced signals."""
        batch = batch.to(self.device)
        self.clean_wavs, self.lens = batch.clean_sig

        noisy_wavs, self.lens = self.hparams.wav_augment(self.clean_wavs, self.lens)
        noisy_feats = self.compute_feats(noisy_wavs)

        # Masking is done here with the "signal approximation (SA)" algorithm.
        mask = self.modules.model(noisy_feats)
        predict_spec = torch.mul(mask, noisy_feats)

        # Also return predicted wav, for evaluation.
        predict_wav = self.hparams.resynth(torch.expm1(predict_spec), noisy_wavs)
        return {"spec": predict_spec, "wav": predict_wav, "noisy_wav": noisy_wavs}

    def compute_feats(self, wavs):
        """Returns corresponding log-spectral features of the input waveforms."""
        feats = self.hparams.compute_STFT(wavs)
        feats = spectral_magnitude(feats, power=0.5)
        return torch.log1p(feats)

    def compute_objectives(self, predictions, batch, stage):
        """Computes the loss given the predicted and targeted outputs."""
        clean_spec = self.compute_feats(self.clean_wavs)
        spec_loss = losses.mse_loss(predictions["spec"], clean_spec, self.lens)
        loss = losses.total_objective(spec_loss)

        # Append this batch of losses to the loss metric for easy summarising.
        self.loss_stats[stage].append(batch.id, predictions["spec"], clean_spec, self.lens,
                                      reduction="batch")

        if stage == Stage.TRAIN:
            # Cheap progress indicator: SI-SNR of the resynthesised training batch.
            sisnr = losses.si_snr(predictions["wav"], self.clean_wavs)
            self.sisnr_meter.update(sisnr.mean(), n=len(batch))
            self.snri.append(losses.snr_improvement(predictions["wav"], predictions["noisy_wav"],
                                                    self.clean_wavs))
        else:
            self.sisnr_metric.append(batch.id, predictions["wav"], self.clean_wavs)
            self.utt_errors.append(batch.id, losses.l1_loss(predictions["spec"], clean_spec,
                                                            reduction="batch"))
        return loss

    def on_fit_start(self):
        super().on_fit_start()
        self.sisnr_meter = AverageMeter("train_sisnr")
        self.snri = []
        self.loss_stats = {}  # one MetricStats per stage, kept for the final report

    def on_stage_start(self, stage, epoch=None):
        """Gets called at the beginning of each epoch."""
        self.loss_stats[stage] = MetricStats(metric=losses.mse_loss)
        if stage != Stage.TRAIN:
            self.sisnr_metric = MetricStats(metric=losses.si_snr_metric)
            self.utt_errors = ErrorStats()

    def on_stage_end(self, stage, stage_loss, epoch=None):
        """Gets called at the end of an epoch."""
        if stage == Stage.TRAIN:
            self.train_loss = stage_loss
            self.train_stats = {"loss": stage_loss, "sisnr": self.sisnr_meter.summarize(),
                                "worst": self.loss_stats[stage].summarize("max_id")}
        else:
            stats = {"loss": stage_loss, "sisnr": self.sisnr_metric.summarize("average")}
            self.hparams.train_logger.log_stats({"Epoch": epoch}, train_stats=self.train_stats,
                                                valid_stats=stats)


def main(steps):
    """Train ``steps`` batches on synthetic data; returns the Brain (what the recipe keeps)."""
    hparams = load_hparams()
    datasets = dataio_prep(hparams, n_train_batches=steps)
    se_brain = SEBrain(
        modules=hparams["modules"],
        opt_class=hparams["opt_class"],
        hparams=hparams,
        run_opts={"device": "cpu"},
    )
    se_brain.fit(hparams["epoch_counter"], train_set=datasets["train"], valid_set=datasets["valid"])
    return se_brain


if __name__ == "__main__":
    brain = main(20)
    print(brain.hparams.train_logger.history[-1])
