# Modelled on SeanNaren/deepspeech.pytorch (deepspeech_pytorch/model.py, validation.py, training.py):
# a DeepSpeech2-style CTC model whose training/validation steps live on the model, error-rate
# metrics and a greedy decoder in validation.py, and a script driving the epochs. Written anew and
# much smaller; the loop stands in for the Lightning trainer the original uses.
import torch

from model import DeepSpeech
from trainer import Trainer

LABELS = "_abcdefgh '"


@torch.no_grad()
def evaluate(model, loader):
    """Test-set error rate after training: the same metric, gradients off."""
    model.eval()
    model.cer.reset()
    for batch in loader:
        model.validation_step(batch)
    return model.cer.compute()


def main(train_loader, val_loader, test_loader, epochs=2, streaming=True):
    model = DeepSpeech(LABELS, streaming=streaming)
    trainer = Trainer(model)
    best_cer = float("inf")
    for epoch in range(epochs):
        avg_loss = trainer.train_epoch(train_loader, epoch)
        cer, confidence = trainer.validate(val_loader)
        best_cer = min(best_cer, cer)
        print(f"epoch {epoch}: loss {avg_loss:.3f} cer {cer:.3f} confidence {confidence:.3f}")
    return model, trainer, evaluate(model, test_loader)
