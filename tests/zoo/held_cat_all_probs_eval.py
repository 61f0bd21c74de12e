# Source: https://github.com/pytorch/pytorch/issues/13613
# Shape: an evaluation loop without no_grad grows one tensor with torch.cat([all_probs, probs]); the concatenation references every batch's graph, so all activations stay alive.
# Verdict: leak
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score


def evaluate_auc(encoder, head, loader):
    encoder.eval()
    head.eval()
    all_probs = torch.empty(0, device="cuda")
    all_labels = []
    for images, labels in loader:
        feats = encoder(images.cuda())
        probs = F.softmax(head(feats), dim=1)[:, 1]
        all_probs = torch.cat([all_probs, probs])  # TLK102
        all_labels.extend(labels.tolist())
    return roc_auc_score(all_labels, all_probs.detach().cpu().numpy())
