# Source: https://github.com/EasonApolo/mstn/issues/4
# Shape: domain adaptation with class prototypes: the adapter keeps one prototype per class on itself and moves it towards the mean source feature of that class every step without detaching; the prototypes only give target pseudo-labels (argmax), so no backward goes through them and each update chains the previous one, growing the graph every step.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class PrototypeMemory:
    def __init__(self, num_classes, feat_dim, momentum=0.9):
        self.momentum = momentum
        self.prototypes = torch.zeros(num_classes, feat_dim)

    def update(self, feats, labels):
        for c in labels.unique().tolist():
            class_mean = feats[labels == c].mean(dim=0)
            self.prototypes[c] = self.momentum * self.prototypes[c] + (1 - self.momentum) * class_mean  # TLK103

    def pseudo_labels(self, feats):
        sim = F.normalize(feats, dim=1) @ F.normalize(self.prototypes, dim=1).t()
        confidence, labels = sim.max(dim=1)
        return labels, confidence


def adapt(feature_extractor: nn.Module, classifier: nn.Module, source_loader, target_loader, num_classes,
          feat_dim=256, steps=1000, lr=1e-3, tgt_weight=0.3, threshold=0.5):
    memory = PrototypeMemory(num_classes, feat_dim)
    params = list(feature_extractor.parameters()) + list(classifier.parameters())
    opt = torch.optim.SGD(params, lr=lr, momentum=0.9)
    for step, ((xs, ys), (xt, _)) in enumerate(zip(source_loader, target_loader)):
        fs, ft = feature_extractor(xs), feature_extractor(xt)
        memory.update(fs, ys)
        pseudo, conf = memory.pseudo_labels(ft)
        keep = conf > threshold
        src_loss = F.cross_entropy(classifier(fs), ys)
        tgt_loss = F.cross_entropy(classifier(ft[keep]), pseudo[keep]) if keep.any() else ft.sum() * 0
        total = src_loss + tgt_weight * tgt_loss
        opt.zero_grad()
        total.backward()
        opt.step()
        if step >= steps:
            break
    return memory.prototypes
