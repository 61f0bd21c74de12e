import random
from collections import defaultdict


class ScalarWriter(object):
    """In-memory stand-in for torch.utils.tensorboard.SummaryWriter."""

    def __init__(self, logdir):
        self.logdir = logdir
        self.scalars = defaultdict(list)
        self.images = {}

    def add_scalar(self, tag, value, step):
        self.scalars[tag].append((step, value))

    def add_image(self, tag, image, step):
        self.images[tag] = (step, image)


class Tacotron2Logger(ScalarWriter):
    def __init__(self, logdir):
        super(Tacotron2Logger, self).__init__(logdir)
        self.epoch_sums = {}
        self.epoch_counts = {}

    def log_training(self, reduced_loss, grad_norm, learning_rate, duration,
                     iteration):
        self.add_scalar("training.loss", reduced_loss, iteration)
        self.add_scalar("grad.norm", grad_norm, iteration)
        self.add_scalar("learning.rate", learning_rate, iteration)
        self.add_scalar("duration", duration, iteration)

    def accumulate(self, metrics, n):
        """Adds one batch of per-utterance metrics to the epoch averages."""
        for name, value in metrics.items():
            self.epoch_sums[name] = self.epoch_sums.get(name, 0.0) + value * n  # expect: TLK101
            self.epoch_counts[name] = self.epoch_counts.get(name, 0) + n

    def log_epoch(self, epoch):
        for name, total in self.epoch_sums.items():
            self.add_scalar("epoch." + name,
                            float(total) / self.epoch_counts[name], epoch)
        self.epoch_sums = {}
        self.epoch_counts = {}

    def log_gate_monitor(self, gate_activation, iteration):
        self.add_scalar("gate.activation", float(gate_activation), iteration)

    def log_validation(self, reduced_loss, model, y, y_pred, iteration):
        self.add_scalar("validation.loss", reduced_loss, iteration)
        _, mel_outputs, gate_outputs, alignments = y_pred
        mel_targets, gate_targets = y

        # plot alignment, mel target and predicted
        idx = random.randint(0, alignments.size(0) - 1)
        self.add_image("alignment", alignments[idx].data.cpu().T, iteration)
        self.add_image("mel_target", mel_targets[idx].data.cpu(), iteration)
        self.add_image("mel_predicted", mel_outputs[idx].data.cpu(), iteration)
