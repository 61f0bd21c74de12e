# Source: https://github.com/EasonApolo/mstn/issues/4
# Shape: MSTN semantic alignment: moving source and target centroids are blended with the current batch's class means, the semantic loss is computed on the blend (so this step's gradient flows through it), and the stored centroids are the detached blend, so no graph crosses a step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def class_means(feats, labels, num_classes):
    onehot = F.one_hot(labels, num_classes).float()
    counts = onehot.sum(dim=0).clamp(min=1).unsqueeze(1)
    return onehot.t() @ feats / counts


class SemanticAlignment(nn.Module):
    def __init__(self, num_classes, feat_dim, decay=0.3):
        super().__init__()
        self.num_classes = num_classes
        self.decay = decay
        self.register_buffer("s_centroid", torch.zeros(num_classes, feat_dim))
        self.register_buffer("t_centroid", torch.zeros(num_classes, feat_dim))

    def forward(self, s_feat, s_label, t_feat, t_logits):
        t_label = t_logits.argmax(dim=1)
        s_centroid = (1 - self.decay) * self.s_centroid + self.decay * class_means(s_feat, s_label, self.num_classes)
        t_centroid = (1 - self.decay) * self.t_centroid + self.decay * class_means(t_feat, t_label, self.num_classes)
        semantic_loss = F.mse_loss(s_centroid, t_centroid)
        self.s_centroid = s_centroid.detach()
        self.t_centroid = t_centroid.detach()
        return semantic_loss


def train(extractor, classifier, aligner, source_loader, target_loader, optimizer, lam=0.1):
    extractor.train()
    classifier.train()
    for (xs, ys), (xt, _) in zip(source_loader, target_loader):
        s_feat, t_feat = extractor(xs), extractor(xt)
        s_logits, t_logits = classifier(s_feat), classifier(t_feat)
        cls_loss = F.cross_entropy(s_logits, ys)
        sem_loss = aligner(s_feat, ys, t_feat, t_logits)
        optimizer.zero_grad()
        (cls_loss + lam * sem_loss).backward()
        optimizer.step()
