import torch
import torch.nn as nn
import torch.nn.functional as F


def MAE(scores, targets):
    MAE = F.l1_loss(scores, targets)
    MAE = MAE.detach().item()
    return MAE


def accuracy_TU(scores, targets):
    scores = scores.detach().argmax(dim=1)
    acc = (scores == targets).float().sum().item()
    return acc


def confusion_matrix(S, C, nb_classes):
    CM = torch.zeros(nb_classes, nb_classes)
    CM.index_put_((S, C), torch.ones(S.numel()), accumulate=True)
    return CM


def accuracy_SBM(scores, targets):
    S = targets.cpu()
    C = torch.argmax(torch.nn.Softmax(dim=1)(scores).cpu().detach(), dim=1)
    nb_classes = scores.size(1)
    CM = confusion_matrix(S, C, nb_classes)
    targets = targets.cpu().detach()
    nb_non_empty_classes = 0
    pr_classes = torch.zeros(nb_classes)
    for r in range(nb_classes):
        cluster = torch.where(targets == r)[0]
        if cluster.shape[0] != 0:
            pr_classes[r] = CM[r, r] / float(cluster.shape[0])
            if CM[r, r] > 0:
                nb_non_empty_classes += 1
        else:
            pr_classes[r] = 0.0
    acc = 100. * torch.sum(pr_classes).item() / float(nb_classes)
    return acc


class NodeSaliency:
    """Gradient saliency of the input node embeddings w.r.t. the true-class score,
    averaged per class; one row per training iteration for the saliency-vs-epoch plots."""

    def __init__(self, n_classes, every=1):
        self.n_classes = n_classes
        self.every = every
        self.records = []
        self.calls = 0

    def update(self, scores, h_emb, labels):
        self.calls += 1
        if (self.calls - 1) % self.every != 0:
            return
        true_score = scores.gather(1, labels[:, None]).sum()
        # retain_graph: the training loss is backpropagated through the same graph afterwards
        grad, = torch.autograd.grad(true_score, h_emb, create_graph=True, retain_graph=True)
        sal = grad.norm(dim=-1)
        per_class = torch.zeros(self.n_classes).index_add(0, labels, sal)
        per_class = per_class / torch.bincount(labels, minlength=self.n_classes).clamp(min=1)
        self.records.append(per_class)  # expect: TLK301

    def summary(self):
        if not self.records:
            return []
        return [sum(float(r[c]) for r in self.records) / len(self.records) for c in range(self.n_classes)]
