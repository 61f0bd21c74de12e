"""Hyperparameters (the recipe's train.yaml, written out as a python dict)."""

import torch

from custom_model import CustomModel
from metric_stats import TrainLogger
from processing import ISTFT, STFT, AddNoise, Resynth


def load_hparams(overrides=None):
    hp = {
        "seed": 4234,
        "sample_rate": 8000,
        "n_samples": 4000,
        "batch_size": 4,
        "n_fft": 256,
        "hop_length": 128,
        "lr": 1e-3,
        "number_of_epochs": 1,
    }
    hp.update(overrides or {})
    torch.manual_seed(hp["seed"])
    n_bins = hp["n_fft"] // 2 + 1
    hp["compute_STFT"] = STFT(hp["n_fft"], hp["hop_length"])
    hp["compute_ISTFT"] = ISTFT(hp["n_fft"], hp["hop_length"])
    hp["resynth"] = Resynth(hp["compute_STFT"], hp["compute_ISTFT"])
    hp["wav_augment"] = AddNoise(snr_db=5.0, seed=7)
    hp["model"] = CustomModel(input_size=n_bins, rnn_size=32, projection=32, layers=2)
    hp["modules"] = {"model": hp["model"]}
    hp["opt_class"] = lambda params: torch.optim.Adam(params, lr=hp["lr"])
    hp["train_logger"] = TrainLogger()
    hp["epoch_counter"] = range(1, hp["number_of_epochs"] + 1)
    return hp
