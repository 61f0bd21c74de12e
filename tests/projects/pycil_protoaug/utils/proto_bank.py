import torch


class ProtoBank(object):
    """Class prototypes in the adapted feature space, refreshed online with an
    exponential moving average of the per-class batch means."""
    def __init__(self, feature_dim, momentum=0.9):
        self.feature_dim = feature_dim
        self.momentum = momentum
        self._protos = {}

    def __len__(self):
        return len(self._protos)

    def __contains__(self, class_idx):
        return class_idx in self._protos

    def update(self, features, targets):
        for class_idx in targets.unique().tolist():
            class_mean = features[targets == class_idx].mean(0)
            if class_idx in self._protos:
                self._protos[class_idx] = self.momentum * self._protos[class_idx] + (1.0 - self.momentum) * class_mean  # expect: TLK103 (beside the retain's TLK202, which its author marked alone; the continuation line joined here)
            else:
                self._protos[class_idx] = class_mean

    def get(self, class_indices):
        return torch.stack([self._protos[c] for c in class_indices], dim=0)

    def known_classes(self):
        return sorted(self._protos.keys())
