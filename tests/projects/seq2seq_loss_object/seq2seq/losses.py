# Layout modelled on IBM/pytorch-seq2seq (seq2seq/loss/loss.py): a loss object sums the batch's
# loss into itself, backwards it, and reports it as a Python float.
import torch.nn.functional as F


class SummedLoss:
    def __init__(self):
        self.acc_loss = 0

    def reset(self):
        self.acc_loss = 0

    def eval_batch(self, outputs, target):
        self.acc_loss += F.mse_loss(outputs, target)

    def backward(self):
        self.acc_loss.backward()

    def get_loss(self):
        return self.acc_loss.item()

