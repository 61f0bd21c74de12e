# Layout modelled on IBM/pytorch-seq2seq (seq2seq/trainer/supervised_trainer.py): the trainer
# takes its loss object as a default argument built from a class of another module, and sums
# what the object's get_loss() gives, a float for SummedLoss.
import torch.nn.functional as F

from seq2seq.losses import SummedLoss


class Trainer:
    def __init__(self, loss=SummedLoss()):
        self.loss = loss

    def _train_batch(self, model, optimizer, x, y):
        loss = self.loss
        loss.reset()
        loss.eval_batch(model(x), y)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.get_loss()

    def train(self, model, optimizer, batches):
        epoch_loss_total = 0
        for x, y in batches:
            loss = self._train_batch(model, optimizer, x, y)
            epoch_loss_total += loss  # clean: get_loss() returns loss.item()
        return epoch_loss_total / len(batches)


class TensorTrainer:
    def _train_batch(self, model, optimizer, x, y):
        loss = F.mse_loss(model(x), y)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    def train(self, model, optimizer, batches):
        epoch_loss_total = 0
        for x, y in batches:
            loss = self._train_batch(model, optimizer, x, y)
            epoch_loss_total += loss  # expect: TLK101
        return epoch_loss_total / len(batches)
