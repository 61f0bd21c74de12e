# Source: https://github.com/pytorch/pytorch/issues/13613
# Shape: the same growing torch.cat, but the loop runs under torch.inference_mode(), so the probabilities have no graph.
# Verdict: clean
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score


def evaluate_auc(encoder, head, loader):
    encoder.eval()
    head.eval()
    all_probs = torch.empty(0)
    all_labels = []
    with torch.inference_mode():
        for images, labels in loader:
            probs = F.softmax(head(encoder(images.cuda())), dim=1)[:, 1]
            all_probs = torch.cat([all_probs, probs.cpu()])
            all_labels.extend(labels.tolist())
    return roc_auc_score(all_labels, all_probs.numpy())
