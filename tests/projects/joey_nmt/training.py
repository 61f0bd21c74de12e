import torch
from torch.nn.utils import clip_grad_norm_

from helpers import PAD_ID, TrainStatistics, ValidationTracker, make_logger
from loss import XentLoss
from prediction import validate_on_data
from search import BeamSearcher


class TrainManager:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.logger = make_logger()
        self.loss = XentLoss(smoothing=cfg["label_smoothing"])
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["learning_rate"])
        self.stats = TrainStatistics()
        self.tracker = ValidationTracker()
        self.searcher = BeamSearcher(cfg["beam_size"], cfg["alpha"], cfg["max_output_length"])
        self.best_ckpt = None

    def _train_step(self, batch):
        src, trg = batch
        ntokens = int((trg[:, 1:] != PAD_ID).sum())
        log_probs = self.model(src, trg[:, :-1])
        batch_loss = self.loss(log_probs, trg[:, 1:]) / ntokens
        batch_loss.backward(retain_graph=True)  # known-false: TLK201 (a TLK202 by its measurement: retain_graph=True papers over the encoder state model.py carries; torchleak does not see the carry across modules)
        total_norm = clip_grad_norm_(self.model.parameters(), self.cfg["clip_grad_norm"])
        self.optimizer.step()
        self.optimizer.zero_grad()
        return batch_loss, ntokens, total_norm

    def _validate(self, valid_data):
        valid_loss, ppl, acc, hyps = validate_on_data(self.model, valid_data, self.loss, self.searcher)
        self.tracker.add_valid(self.stats.steps, valid_loss, acc)
        if self.tracker.is_best(acc):
            self.best_ckpt = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        self.logger.info("step %d valid loss %.4f ppl %.2f acc %.2f", self.stats.steps, float(valid_loss), ppl, acc)
        return acc

    def train_and_validate(self, train_data, valid_data):
        for epoch in range(self.cfg["epochs"]):
            epoch_loss = 0.0
            for batch in train_data:
                batch_loss, ntokens, total_norm = self._train_step(batch)
                self.stats.add_batch(batch_loss, ntokens)  # expect: TLK101 (helpers.py)
                self.stats.add_grad_norm(total_norm)
                epoch_loss += batch_loss.item()
                if self.stats.steps % self.cfg["validation_freq"] == 0:
                    self._validate(valid_data)
            self.logger.info("epoch %d: total training loss %.4f", epoch + 1, epoch_loss)
        return self.tracker.history
