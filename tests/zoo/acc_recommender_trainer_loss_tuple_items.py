# Source: https://github.com/RUCAIBox/RecBole/pull/307
# Shape: the fixed recommender Trainer: the tuple of loss terms is turned into floats with per_loss.item() before it is zipped into the epoch totals, and a single loss is added as losses.item(); the totals hold no graph.
# Verdict: clean
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, config, model: nn.Module):
        self.model = model
        self.clip_grad_norm = config.get("clip_grad_norm")
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config.get("learning_rate", 1e-3))

    def _train_epoch(self, train_data, epoch_idx, loss_func=None):
        self.model.train()
        loss_func = loss_func or self.model.calculate_loss
        total_loss = None
        for batch_idx, interaction in enumerate(train_data):
            self.optimizer.zero_grad()
            losses = loss_func(interaction)
            if isinstance(losses, tuple):
                loss = sum(losses)
                loss_tuple = tuple(per_loss.item() for per_loss in losses)
                total_loss = loss_tuple if total_loss is None else tuple(map(sum, zip(total_loss, loss_tuple)))
            else:
                loss = losses
                total_loss = losses.item() if total_loss is None else total_loss + losses.item()
            loss.backward()
            if self.clip_grad_norm:
                nn.utils.clip_grad_norm_(self.model.parameters(), **self.clip_grad_norm)
            self.optimizer.step()
        return total_loss

    def fit(self, train_data, epochs):
        for epoch_idx in range(epochs):
            train_loss = self._train_epoch(train_data, epoch_idx)
            if isinstance(train_loss, tuple):
                message = ", ".join(f"loss{i}: {part:.4f}" for i, part in enumerate(train_loss))
            else:
                message = f"train loss: {train_loss:.4f}"
            print(f"epoch {epoch_idx} training [{message}]")
