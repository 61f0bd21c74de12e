from darts.utils._lightning import Callback


class LossLogger(Callback):
    """Custom callback from the darts user guide ("make the model losses accessible in Python")."""

    def __init__(self):
        self.train_loss = []
        self.val_loss = []

    # will automatically be called at the end of each epoch
    def on_train_epoch_end(self, trainer, pl_module) -> None:
        self.train_loss.append(float(trainer._results["train_loss"].compute()))

    def on_validation_epoch_end(self, trainer, pl_module) -> None:
        self.val_loss.append(float(trainer._results["val_loss"].compute()))


class BatchLossTracker(Callback):
    """Keeps the per-batch training loss (from the detached `outputs` Lightning passes)."""

    def __init__(self):
        self.batch_losses = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.batch_losses.append(outputs["loss"])
