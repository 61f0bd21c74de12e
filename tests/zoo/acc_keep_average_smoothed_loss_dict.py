# Source: https://github.com/coqui-ai/Trainer/pull/87
# Shape: a TTS trainer keeps smoothed training losses in a KeepAverage helper (a dict of running averages, each updated as 0.99 * old + 0.01 * value); train_step returns the criterion's loss dict, whose "loss" entry it has just backwarded, and the epoch loop hands that dict to the helper, so every smoothed slot chains each step's graph.
# Verdict: leak
import torch


class KeepAverage:
    def __init__(self):
        self.avg_values = {}
        self.iters = {}

    def add_value(self, name, init_val=0, init_iter=0):
        self.avg_values[name] = init_val
        self.iters[name] = init_iter

    def update_value(self, name, value, weighted_avg=False):
        if name not in self.avg_values:
            self.add_value(name, init_val=value)
        elif weighted_avg:
            self.avg_values[name] = 0.99 * self.avg_values[name] + 0.01 * value
            self.iters[name] += 1
        else:
            self.avg_values[name] = self.avg_values[name] * self.iters[name] + value
            self.iters[name] += 1
            self.avg_values[name] /= self.iters[name]

    def update_values(self, value_dict):
        for key, value in value_dict.items():
            self.update_value(key, value, weighted_avg=True)  # TLK101


class Trainer:
    def __init__(self, model, criterion, optimizer, loader):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.loader = loader
        self.keep_avg_train = KeepAverage()

    def train_step(self, batch):
        outputs = self.model(batch["text"], batch["text_lengths"], batch["mel"])
        loss_dict = self.criterion(outputs, batch)
        self.optimizer.zero_grad()
        loss_dict["loss"].backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss_dict

    def train_epoch(self):
        self.model.train()
        for cur_step, batch in enumerate(self.loader):
            loss_dict = self.train_step(batch)
            self.keep_avg_train.update_values(loss_dict)
            if cur_step % 50 == 0:
                print(cur_step, {k: float(v) for k, v in self.keep_avg_train.avg_values.items()})
