"""Evaluation loop for the student."""
import torch

import utils


def evaluate(model, loss_fn, batches):
    model.eval()
    summ = []
    loss_avg = utils.RunningAverage()
    with torch.no_grad():
        for _, x, y in batches:
            out = model(x)
            loss = loss_fn(out, y)
            summ.append({"loss": loss, "acc": utils.accuracy(out, y)})  # CLEAN: built under torch.no_grad()
            loss_avg.update(loss)  # CLEAN: loss computed under torch.no_grad(), no graph to keep
    metrics = {"loss": float(loss_avg()), "acc": sum(s["acc"] for s in summ) / max(len(summ), 1)}
    model.train()
    return metrics
