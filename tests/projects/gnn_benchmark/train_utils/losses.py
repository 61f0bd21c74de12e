import torch
import torch.nn as nn
import torch.nn.functional as F


def sbm_class_weights(label, n_classes):
    # calculating label weights for weighted loss computation (as GatedGCNNet.loss)
    V = label.size(0)
    label_count = torch.bincount(label, minlength=n_classes)
    cluster_sizes = label_count.long()
    weight = (V - cluster_sizes).float() / V
    weight *= (cluster_sizes > 0).float()
    return weight


class CalibratedWeightedCE(nn.Module):
    """Class-balanced cross-entropy on temperature-scaled scores.

    The temperature is learned together with the net so that softmax(scores / T)
    is calibrated for the PATTERN threshold sweep done after training.
    """

    def __init__(self, n_classes, init_temperature=1.0):
        super().__init__()
        self.n_classes = n_classes
        self.log_temperature = nn.Parameter(torch.tensor(float(init_temperature)).log())

    @property
    def temperature(self):
        return self.log_temperature.exp()

    def forward(self, pred, label):
        weight = sbm_class_weights(label, self.n_classes)
        return F.cross_entropy(pred / self.temperature, label, weight=weight)
