import time

import torch
import torch.nn as nn

from .loss_modules import PinballLoss, grouped_loss, sMAPE
from .logger import Logger


class ESRNNTrainer(nn.Module):
    def __init__(self, model, dataset, config):
        super(ESRNNTrainer, self).__init__()
        self.model = model.to(config['device'])
        self.config = config
        self.dl = dataset
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config['learning_rate'])
        self.criterion = PinballLoss(config['training_tau'])
        self.log = Logger()
        self.level = None
        self.step = 0

    def train_batch(self, chunk, future):
        self.optimizer.zero_grad()
        pred, pred_norm, self.level, lvp = self.model(chunk, self.level)
        loss = grouped_loss(self.criterion, pred / self.level, future / self.level)
        total = loss + self.config['level_variability_penalty'] * lvp
        total.backward(retain_graph=True)  # expect: TLK202
        nn.utils.clip_grad_value_(self.model.parameters(), self.config['gradient_clipping'])
        self.optimizer.step()
        self.log.log_forecast(self.step, pred)  # expect: TLK102
        self.step += 1
        return float(loss)  # CLEAN: scalar returned to the loop

    @torch.no_grad()
    def val(self, chunk, future):
        self.model.eval()
        pred, _, _, _ = self.model(chunk, None)
        self.log.log_forecast(-self.step, pred)  # CLEAN: forecast made under torch.no_grad()
        self.model.train()
        return sMAPE(pred, future).item()

    def train(self, n_steps):
        self.model.train()
        curve = []
        it = iter(self.dl)
        for _ in range(n_steps):
            start = time.time()
            chunk, future = next(it)
            curve.append(self.train_batch(chunk, future))
            self.log.log_scalar('Iteration time', time.time() - start, self.step)
            if self.step % self.config['val_every'] == 0:
                self.log.log_scalar('val_smape', self.val(chunk, future), self.step)
            if self.step % self.config['log_every'] == 0:
                print('[TRAIN] step %d loss %.4f' % (self.step, self.criterion.epoch_mean()))
        return curve
