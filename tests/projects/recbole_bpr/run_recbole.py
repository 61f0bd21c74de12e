# Modelled on RUCAIBox/RecBole (recbole/trainer/trainer.py, recbole/model/general_recommender/bpr.py,
# recbole/model/loss.py, recbole/evaluator/collector.py, recbole/quick_start/quick_start.py): a
# Trainer whose epoch calls the model's calculate_loss (which may return a tuple of loss parts),
# a collector that gathers scores batch by batch for the metrics, and an entry point that builds
# the model and runs fit. Written anew and much smaller.
import torch

from model import BPR
from trainer import Trainer


def run_recbole(train_data, valid_data, n_users=20, n_items=30, epochs=3, train_metrics=True):
    torch.manual_seed(2020)
    model = BPR(n_users, n_items)
    trainer = Trainer(model, train_metrics=train_metrics)
    best_valid_score = trainer.fit(train_data, valid_data, epochs=epochs)
    return model, trainer, best_valid_score
