# Modelled on the FreeMatch/ReMixMatch additions that forks of kekmodel/FixMatch-pytorch put
# beside utils/misc.py (cf. TorchSSL's freematch.py: p_model and time_p updated per step): a
# self-adaptive confidence threshold kept as an EMA of the mean max-probability, and a history of
# the model's class distribution on unlabeled data for distribution alignment.
import torch


class SelfAdaptiveThreshold(object):
    def __init__(self, num_classes, momentum=0.999):
        self.m = momentum
        self.time_p = torch.tensor(1.0 / num_classes)

    def update(self, max_probs):
        self.time_p = self.m * self.time_p + (1 - self.m) * max_probs.mean()
        return self.time_p

    def mask(self, max_probs):
        return max_probs.ge(self.time_p).float()


class DistAlignHistory(object):
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.history = []

    def update(self, probs):
        self.history.append(probs.mean(0))

    def p_model(self):
        if not self.history:
            return torch.full((self.num_classes,), 1.0 / self.num_classes)
        return torch.stack(self.history).mean(0)

    def align(self, probs, p_target):
        probs = probs * p_target / self.p_model()
        return probs / probs.sum(dim=1, keepdim=True)
