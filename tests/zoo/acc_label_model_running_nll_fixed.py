# Source: https://github.com/BatsResearch/labelmodels/issues/4
# Shape: A weak-supervision label model's Trainer.train_epoch adds each batch's negative marginal log-likelihood tensor into running_loss to report the epoch mean.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class NaiveBayesLabelModel(nn.Module):
    """Latent true label y, labeling functions vote (0 = abstain, 1..K = class)."""

    def __init__(self, num_classes, num_lfs, init_acc=0.7):
        super().__init__()
        self.num_classes = num_classes
        self.class_logits = nn.Parameter(torch.zeros(num_classes))
        self.acc_logits = nn.Parameter(torch.full((num_lfs,), init_acc))
        self.propensity_logits = nn.Parameter(torch.zeros(num_lfs))

    def log_marginal(self, votes):
        n_lfs = votes.shape[1]
        k = self.num_classes
        log_prior = F.log_softmax(self.class_logits, dim=0).view(1, k)
        log_acc = F.logsigmoid(self.acc_logits).view(1, n_lfs, 1)
        log_err = (F.logsigmoid(-self.acc_logits) - torch.log(torch.tensor(float(k - 1)))).view(1, n_lfs, 1)
        log_vote = F.logsigmoid(self.propensity_logits).view(1, n_lfs, 1)
        log_abstain = F.logsigmoid(-self.propensity_logits).view(1, n_lfs, 1)
        classes = torch.arange(1, k + 1).view(1, 1, k)
        v = votes.unsqueeze(-1)
        voted = (v > 0).float()
        agrees = (v == classes).float()
        per_lf = (1 - voted) * log_abstain + voted * (log_vote + agrees * log_acc + (1 - agrees) * log_err)
        joint = log_prior + per_lf.sum(dim=1)
        return torch.logsumexp(joint, dim=1)

    @torch.no_grad()
    def predict_proba(self, votes):
        k = self.num_classes
        n_lfs = votes.shape[1]
        log_prior = F.log_softmax(self.class_logits, dim=0).view(1, k)
        log_acc = F.logsigmoid(self.acc_logits).view(1, n_lfs, 1)
        log_err = (F.logsigmoid(-self.acc_logits) - torch.log(torch.tensor(float(k - 1)))).view(1, n_lfs, 1)
        classes = torch.arange(1, k + 1).view(1, 1, k)
        v = votes.unsqueeze(-1)
        voted = (v > 0).float()
        agrees = (v == classes).float()
        score = log_prior + (voted * (agrees * log_acc + (1 - agrees) * log_err)).sum(dim=1)
        return score.softmax(dim=1)


class LabelModelTrainer:
    def __init__(self, model, lr=0.05, l2=1e-4):
        self.model = model
        self.l2 = l2
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = {"nll": []}

    def regulariser(self):
        return self.l2 * (self.acc_reg_target() ** 2).sum()

    def acc_reg_target(self):
        return self.model.acc_logits - 0.7

    def train_epoch(self, batches):
        self.model.train()
        running_loss = 0.0
        n_seen = 0
        for votes in batches:
            self.optimizer.zero_grad()
            nll = -self.model.log_marginal(votes).mean() + self.regulariser()
            nll.backward()
            self.optimizer.step()
            running_loss += nll.item()
            n_seen += 1
        return running_loss / max(n_seen, 1)

    def fit(self, batches, epochs=1):
        for epoch in range(epochs):
            epoch_nll = self.train_epoch(batches)
            self.history["nll"].append(float(epoch_nll))
        return self.history


def make_batches(n=24, seed=0, batch_size=32, num_lfs=6, num_classes=3):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        truth = torch.randint(1, num_classes + 1, (batch_size, 1), generator=g)
        noise = torch.randint(1, num_classes + 1, (batch_size, num_lfs), generator=g)
        correct = torch.rand(batch_size, num_lfs, generator=g) < 0.75
        votes = torch.where(correct, truth.expand(-1, num_lfs), noise)
        abstain = torch.rand(batch_size, num_lfs, generator=g) < 0.3
        batches.append(votes.masked_fill(abstain, 0))
    return batches


def run(batches):
    model = NaiveBayesLabelModel(num_classes=3, num_lfs=6)
    trainer = LabelModelTrainer(model)
    history = trainer.fit(batches, epochs=1)
    print("epoch nll:", history["nll"])
    return history


if __name__ == "__main__":
    run(make_batches())
