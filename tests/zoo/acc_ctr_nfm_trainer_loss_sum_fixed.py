# Source: https://github.com/Ethan-cw/Notes_for_recommadation_algorithm/blob/d7b3ab96df33ae40b66e5709a73c5169b6c9414c/pytorch_code/utils/utils.py
# Shape: fixed twin: the epoch accumulator sums train_loss.detach() * len(b_x), as upstream does, so no batch graph is referenced.
# Verdict: clean
from copy import deepcopy

import torch
import torch.nn as nn

FIELD_DIMS = [50, 40, 30, 20, 60, 10, 25, 35]
EMBEDDING_DIM = 16
BATCH_SIZE = 64

_GEN = torch.Generator().manual_seed(2021)
TRAIN_X = torch.stack([torch.randint(0, d, (512,), generator=_GEN) for d in FIELD_DIMS], dim=1)
TRAIN_Y = (torch.rand(512, 1, generator=_GEN) < 0.4).float()


class FeaturesEmbedding(nn.Module):
    def __init__(self, field_dims, embed_dim):
        super().__init__()
        self.embedding = nn.Embedding(sum(field_dims), embed_dim)
        offsets = [0]
        for d in field_dims[:-1]:
            offsets.append(offsets[-1] + d)
        self.register_buffer("offsets", torch.tensor(offsets, dtype=torch.long))
        nn.init.xavier_uniform_(self.embedding.weight.data)

    def forward(self, x):
        return self.embedding(x + self.offsets.unsqueeze(0))


class FeaturesLinear(nn.Module):
    def __init__(self, field_dims):
        super().__init__()
        self.fc = nn.Embedding(sum(field_dims), 1)
        self.bias = nn.Parameter(torch.zeros((1,)))
        offsets = [0]
        for d in field_dims[:-1]:
            offsets.append(offsets[-1] + d)
        self.register_buffer("offsets", torch.tensor(offsets, dtype=torch.long))

    def forward(self, x):
        return torch.sum(self.fc(x + self.offsets.unsqueeze(0)), dim=1) + self.bias


class BiInteractionPooling(nn.Module):
    def forward(self, x):
        square_of_sum = torch.sum(x, dim=1) ** 2
        sum_of_square = torch.sum(x ** 2, dim=1)
        return 0.5 * (square_of_sum - sum_of_square)


class NeuralFactorizationMachine(nn.Module):
    def __init__(self, field_dims, embed_dim, mlp_dims=(64, 32), dropout=0.1):
        super().__init__()
        self.linear = FeaturesLinear(field_dims)
        self.embedding = FeaturesEmbedding(field_dims, embed_dim)
        self.bi_pooling = BiInteractionPooling()
        layers, in_dim = [], embed_dim
        for d in mlp_dims:
            layers += [nn.Linear(in_dim, d), nn.BatchNorm1d(d), nn.ReLU(), nn.Dropout(dropout)]
            in_dim = d
        layers.append(nn.Linear(in_dim, 1))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        embed_x = self.embedding(x)
        cross = self.bi_pooling(embed_x)
        return torch.sigmoid(self.linear(x) + self.mlp(cross))


class EarlyStopper:
    def __init__(self, model, num_trials=10):
        self.num_trials = num_trials
        self.trial_counter = 0
        self.best_metric = -1e9
        self.best_state = deepcopy(model.state_dict())
        self.model = model

    def is_continuable(self, metric):
        if metric > self.best_metric:
            self.best_metric = metric
            self.trial_counter = 0
            self.best_state = deepcopy(self.model.state_dict())
            return True
        elif self.trial_counter + 1 < self.num_trials:
            self.trial_counter += 1
            return True
        return False


class Trainer:
    def __init__(self, model, optimizer, criterion, batch_size=None, task="classification"):
        assert task in ["classification", "regression"]
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.batch_size = batch_size
        self.task = task

    def train(self, train_loader, epoch=1, trials=None):
        if trials:
            early_stopper = EarlyStopper(self.model, trials)
        train_loss_list = []
        n_seen = 0
        for e in range(epoch):
            self.model.train()
            train_loss_ = 0
            for b_x, b_y in train_loader:
                self.optimizer.zero_grad()
                pred_y = self.model(b_x)
                train_loss = self.criterion(pred_y, b_y)
                train_loss.backward()
                self.optimizer.step()

                train_loss_ += train_loss.detach() * len(b_x)
                n_seen += len(b_x)

            train_loss_list.append(train_loss_ / max(n_seen, 1))
            if trials:
                _, metric = self.test(TRAIN_X[:128], TRAIN_Y[:128])
                if not early_stopper.is_continuable(metric):
                    break
        return train_loss_list, train_loss_

    def test(self, test_X, test_y):
        self.model.eval()
        with torch.no_grad():
            pred_y = self.model(test_X)
            test_loss = self.criterion(pred_y, test_y).detach()
        test_metric = -test_loss
        return test_loss, test_metric


class BatchLoader:
    def __init__(self, index_batches):
        self.index_batches = index_batches

    def __iter__(self):
        for idx in self.index_batches:
            yield TRAIN_X[idx], TRAIN_Y[idx]


def make_batches(n):
    torch.manual_seed(0)
    return [list(range((i * BATCH_SIZE) % 512, (i * BATCH_SIZE) % 512 + BATCH_SIZE)) for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    nfm = NeuralFactorizationMachine(FIELD_DIMS, EMBEDDING_DIM)
    optimizer = torch.optim.Adam(nfm.parameters(), lr=1e-3, weight_decay=1e-6)
    trainer = Trainer(nfm, optimizer, nn.BCELoss(), BATCH_SIZE)
    train_loss_list, last_epoch_sum = trainer.train(BatchLoader(batches), epoch=1)
    return trainer, train_loss_list, last_epoch_sum
