# Modelled on the note keeping of jadore801120/attention-is-all-you-need-pytorch (train.py:
# total_loss, n_word_total, n_word_correct, then loss_per_word and ppl = exp(min(loss, 100))),
# gathered in a meter object as forks write it, beside print_performances().
import math


class TokenMeter(object):
    def __init__(self):
        self.total_loss = 0
        self.n_word_total = 0
        self.n_word_correct = 0

    def update(self, loss, n_word, n_correct=0):
        self.total_loss += loss
        self.n_word_total += n_word
        self.n_word_correct += n_correct

    def summary(self):
        loss_per_word = float(self.total_loss) / max(self.n_word_total, 1)
        accuracy = self.n_word_correct / max(self.n_word_total, 1)
        return loss_per_word, math.exp(min(loss_per_word, 100)), accuracy


def print_performances(header, ppl, accu, start_time=0.0):
    print('  - {header:12} ppl: {ppl: 8.5f}, accuracy: {accu:3.3f} %'.format(header=f"({header})", ppl=ppl, accu=100 * accu))


class SmoothedLoss(object):
    """Exponentially smoothed loss per word for the progress line; detaches what it is given."""

    def __init__(self, beta=0.98):
        self.beta = beta
        self.value = None

    def update(self, loss):
        loss = loss.detach()
        self.value = loss if self.value is None else self.beta * self.value + (1 - self.beta) * loss
        return self.value
