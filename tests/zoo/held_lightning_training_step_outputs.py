# Source: https://github.com/sktime/pytorch-forecasting/pull/1924
# Shape: a LightningModule's training_step (run once per batch) appends a dict holding the attached loss and predictions to self.training_step_outputs, which is only cleared at epoch end.
# Verdict: leak
import lightning.pytorch as pl
import torch
import torch.nn as nn


class Forecaster(pl.LightningModule):
    def __init__(self, n_features: int, horizon: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, 128), nn.ReLU(), nn.Linear(128, horizon))
        self.loss_fn = nn.SmoothL1Loss()
        self.training_step_outputs = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        prediction = self.net(x)
        loss = self.loss_fn(prediction, y)
        self.log("train_loss", loss)
        self.training_step_outputs.append({"loss": loss, "prediction": prediction})  # TLK102
        return loss

    def on_train_epoch_end(self):
        epoch_loss = torch.stack([out["loss"] for out in self.training_step_outputs]).mean()
        self.log("train_epoch_loss", epoch_loss)
        self.training_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
