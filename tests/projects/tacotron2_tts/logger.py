import random
import torch


class ScalarWriter(object):
    """In-memory replacement for torch.utils.tensorboard.SummaryWriter."""

    def __init__(self, logdir=None):
        self.logdir = logdir
        self.scalars = {}
        self.images = {}

    def add_scalar(self, tag, value, step):
        self.scalars.setdefault(tag, []).append((step, float(value)))

    def add_image(self, tag, image, step):
        self.images[tag] = (step, image)


class Tacotron2Logger(ScalarWriter):
    def __init__(self, logdir=None):
        super(Tacotron2Logger, self).__init__(logdir)
        self.focus_rates = []

    def log_training(self, reduced_loss, grad_norm, learning_rate, duration,
                     iteration, y_pred=None):
        self.add_scalar("training.loss", reduced_loss, iteration)
        self.add_scalar("grad.norm", grad_norm, iteration)
        self.add_scalar("learning.rate", learning_rate, iteration)
        self.add_scalar("duration", duration, iteration)
        if y_pred is not None:
            # attention "focus rate": mean over decoder steps of the largest
            # attention weight; ~1 once the alignment is sharp and diagonal
            _, _, _, alignments = y_pred
            self.focus_rates.append(alignments.max(dim=2)[0].mean())  # expect: TLK102
            self.add_scalar("training.focus_rate", self.focus_rates[-1], iteration)

    def log_validation(self, reduced_loss, model, y, y_pred, iteration):
        self.add_scalar("validation.loss", reduced_loss, iteration)
        _, mel_outputs, gate_outputs, alignments = y_pred
        mel_targets, gate_targets = y

        # plot alignment, mel target and predicted, gate target and predicted
        idx = random.randint(0, alignments.size(0) - 1)
        self.add_image("alignment", alignments[idx].data.cpu().T, iteration)
        self.add_image("mel_target", mel_targets[idx].data.cpu(), iteration)
        self.add_image("mel_predicted", mel_outputs[idx].data.cpu(), iteration)
        self.add_image(
            "gate",
            torch.stack([gate_targets[idx].data.cpu(),
                         torch.sigmoid(gate_outputs[idx]).data.cpu()]),
            iteration)
