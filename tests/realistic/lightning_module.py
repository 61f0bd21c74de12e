# A LightningModule following the docs' on_*_epoch_end pattern, with one slip.
import lightning as L
import torch
import torch.nn.functional as F


class LitClassifier(L.LightningModule):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.training_step_outputs = []
        self.validation_step_outputs = []

    def forward(self, x):
        return self.backbone(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y)
        self.log("train_loss", loss)
        self.training_step_outputs.append(loss)  # TLK102
        return loss

    def on_train_epoch_end(self):
        epoch_mean = torch.stack(self.training_step_outputs).mean()
        self.log("training_epoch_mean", epoch_mean)
        self.training_step_outputs.clear()

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y)
        self.validation_step_outputs.append(loss)
        return loss
