# Source: https://github.com/BatsResearch/labelmodels/issues/4
# Shape: a label model (an nn.Module subclass) fits itself in a method: each batch's negative log-likelihood plus a regulariser is backwarded and then added to running_loss as a tensor, so the epoch's running total chains every batch's graph until the epoch ends.
# Verdict: leak
import torch
import torch.nn as nn


class NaiveBayesLabelModel(nn.Module):
    def __init__(self, num_classes, num_lfs, init_acc=0.9, acc_prior=0.025):
        super().__init__()
        self.num_classes = num_classes
        self.init_acc = init_acc
        self.acc_prior = acc_prior
        self.accuracy = nn.Parameter(torch.full((num_lfs,), init_acc))
        self.class_balance = nn.Parameter(torch.zeros(num_classes))

    def forward(self, votes):
        agree = torch.log(torch.sigmoid(self.accuracy))
        disagree = torch.log(torch.sigmoid(-self.accuracy))
        per_class = torch.stack([((votes == k + 1).float() * agree + (votes != k + 1).float() * disagree).sum(1)
                                 for k in range(self.num_classes)], dim=1)
        return torch.logsumexp(per_class + torch.log_softmax(self.class_balance, 0), dim=1)

    def _regularization(self):
        return self.acc_prior * torch.norm(self.accuracy - self.init_acc) ** 2

    def estimate(self, vote_matrix, epochs=5, batch_size=64, lr=0.01):
        optimizer = torch.optim.SGD(self.parameters(), lr=lr)
        batches = [vote_matrix[i:i + batch_size] for i in range(0, len(vote_matrix), batch_size)]
        for epoch in range(epochs):
            running_loss = 0.0
            for batch in batches:
                optimizer.zero_grad()
                nll = -1 * torch.mean(self(batch))
                nll += self._regularization()
                nll.backward()
                optimizer.step()
                running_loss += nll  # TLK101
            print(f"epoch {epoch}: loss {running_loss.item() / len(batches):.4f}")
