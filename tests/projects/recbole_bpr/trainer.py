"""Fits a recommender epoch by epoch, with early stopping on the validation AUC."""
import torch
from torch.nn.utils import clip_grad_norm_

from collector import Collector, auc


def early_stopping(value, best, cur_step, max_step):
    if value > best:
        return value, 0, False, True
    cur_step += 1
    return best, cur_step, cur_step > max_step, False


class Trainer:
    def __init__(self, model, learning_rate=1e-2, clip_grad_norm=None, stopping_step=3, train_metrics=True):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
        self.clip_grad_norm = clip_grad_norm
        self.stopping_step = stopping_step
        self.train_metrics = train_metrics
        self.train_collector = Collector()
        self.eval_collector = Collector()
        self.train_loss_dict = {}
        self.best_valid_score = -float("inf")
        self.cur_step = 0

    def _check_nan(self, loss):
        if torch.isnan(loss):
            raise ValueError("Training loss is nan")

    def _train_epoch(self, train_data, epoch_idx, loss_func=None):
        self.model.train()
        loss_func = loss_func or self.model.calculate_loss
        total_loss = None
        for batch_idx, interaction in enumerate(train_data):
            self.optimizer.zero_grad()
            losses = loss_func(interaction)  # known-miss: TLK103 (loss_func is the bound method self.model.calculate_loss, aliased before the loop; BPR.calculate_loss in model.py folds user_e.mean(0) into self.user_centroid and uses it in align_loss, so the next batch's backward reaches this batch's freed graph)
            if isinstance(losses, tuple):
                loss = sum(losses)
                total_loss = losses if total_loss is None else tuple(map(sum, zip(total_loss, losses)))  # expect: TLK101
            else:
                loss = losses
                total_loss = losses.item() if total_loss is None else total_loss + losses.item()
            self._check_nan(loss)
            loss.backward()
            if self.clip_grad_norm:
                clip_grad_norm_(self.model.parameters(), **self.clip_grad_norm)
            self.optimizer.step()
            if self.train_metrics:
                negatives = dict(interaction, item_id=interaction["neg_item_id"])
                self.train_collector.eval_batch_collect(self.model.predict(interaction), self.model.predict(negatives))  # known-miss: TLK102 (Collector.eval_batch_collect in collector.py passes the scores to DataStruct.update_tensor, which torch.cat's value.cpu() onto self._data_dict[name] until get_data_struct() at the end of the epoch)
        return total_loss

    @torch.no_grad()
    def evaluate(self, eval_data):
        self.model.eval()
        for interaction in eval_data:
            negatives = dict(interaction, item_id=interaction["neg_item_id"])
            self.eval_collector.eval_batch_collect(self.model.predict(interaction), self.model.predict(negatives))
        return auc(self.eval_collector.get_data_struct())

    def fit(self, train_data, valid_data, epochs=3):
        for epoch_idx in range(epochs):
            train_loss = self._train_epoch(train_data, epoch_idx)
            self.train_loss_dict[epoch_idx] = sum(train_loss) if isinstance(train_loss, tuple) else train_loss  # (what _train_epoch returns from the sum it keeps attached: reported there)
            train_auc = auc(self.train_collector.get_data_struct()) if self.train_metrics else None
            valid_score = self.evaluate(valid_data)
            self.best_valid_score, self.cur_step, stop, improved = early_stopping(
                valid_score, self.best_valid_score, self.cur_step, self.stopping_step)
            print(f"epoch {epoch_idx}: train loss {float(self.train_loss_dict[epoch_idx]):.4f} train auc {train_auc} valid auc {valid_score:.4f}")
            if stop:
                break
        return self.best_valid_score
