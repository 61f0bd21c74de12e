# Source: https://github.com/BatsResearch/labelmodels/issues/4
# Shape: the label model's fit() method keeps running_loss on self as a tensor sum of every batch loss, so every batch's autograd graph stays reachable from the model.
# Verdict: leak
"""Weak-supervision label model: learns per-labeling-function accuracies from votes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N_LFS, N_CLASSES, BATCH = 6, 3, 16


class VoteLabelModel(nn.Module):
    def __init__(self, n_lfs=N_LFS, n_classes=N_CLASSES):
        super().__init__()
        self.acc_logit = nn.Parameter(torch.full((n_lfs,), 0.5))
        self.class_logit = nn.Parameter(torch.zeros(n_classes))
        self.n_classes = n_classes
        self.running_loss = 0.0
        self.n_seen = 0

    def joint_log_likelihood(self, votes):
        onehot = F.one_hot(votes, self.n_classes).float()          # B x L x C
        acc = torch.sigmoid(self.acc_logit)[None, :, None]
        wrong = (1.0 - acc) / (self.n_classes - 1)
        per_lf = torch.log(onehot * acc + (1.0 - onehot) * wrong)  # B x L x C
        return per_lf.sum(dim=1) + F.log_softmax(self.class_logit, dim=0)

    def neg_log_marginal(self, votes):
        return -torch.logsumexp(self.joint_log_likelihood(votes), dim=1).mean()

    def fit(self, batches, lr=0.05):
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        self.running_loss, self.n_seen = 0.0, 0
        for votes in batches:
            optimizer.zero_grad()
            loss = self.neg_log_marginal(votes)
            loss.backward()
            optimizer.step()
            self.running_loss += loss  # TLK101
            self.n_seen += 1
        return self.running_loss / max(self.n_seen, 1)


def make_batches(n):
    g = torch.Generator().manual_seed(1)
    out = []
    for _ in range(n):
        truth = torch.randint(0, N_CLASSES, (BATCH, 1), generator=g)
        noise = torch.randint(0, N_CLASSES, (BATCH, N_LFS), generator=g)
        keep = torch.rand(BATCH, N_LFS, generator=g) < 0.7
        out.append(torch.where(keep, truth.expand(-1, N_LFS), noise))
    return out


def run(batches):
    model = VoteLabelModel()
    avg = model.fit(batches)
    return float(avg)


if __name__ == "__main__":
    print(run(make_batches(20)))
