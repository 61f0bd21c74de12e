"""Graph property prediction with a virtual-node GIN (modelled on snap-stanford/ogb examples/graphproppred/mol)."""
import argparse

import torch
import torch.nn as nn

from callbacks import PredictionRecorder, EarlyStopping
from gnn import GNN, flag_step
from utils.data import make_graphs, make_loader


def train(model, loader, optimizer, criterion, callbacks, args):
    model.train()
    total = 0.0
    for step, batch in enumerate(loader):
        y = batch["y"]
        if args.flag:
            total += flag_step(model, batch, y, criterion, optimizer, m=args.m)
            continue
        optimizer.zero_grad()
        pred, aux = model(batch)
        loss = criterion(pred, y)
        aux_loss = criterion(aux, y[:, 1]) * args.aux_weight
        # two backward calls over one shared forward: the first must keep the graph
        loss.backward(retain_graph=True)
        aux_loss.backward()
        optimizer.step()
        total += loss.item()
        for cb in callbacks:
            cb.on_batch_end(step, pred, batch)  # expect: TLK102 (callbacks.py)
    return total / max(len(loader), 1)


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    logits, ys = [], []
    for batch in loader:
        pred, _ = model(batch)
        logits.append(pred)
        ys.append(batch["y"])
    logits, ys = torch.cat(logits), torch.cat(ys)
    return {"valid_loss": float(criterion(logits, ys)), "valid_logits": logits}


def main(argv=None, steps=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--flag_mode", default="alternate", choices=["alternate", "always", "never"])
    p.add_argument("--m", type=int, default=3)
    p.add_argument("--aux_weight", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    train_loader = make_loader(make_graphs(48, seed=0), steps=steps)
    valid_loader = make_loader(make_graphs(16, seed=1))
    model = GNN(num_tasks=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.BCEWithLogitsLoss()
    callbacks = [PredictionRecorder(), EarlyStopping()]
    for epoch in range(args.epochs):
        if args.flag_mode == "alternate":
            args.flag = epoch % 2  # alternate plain and FLAG epochs
        else:
            args.flag = int(args.flag_mode == "always")
        loss = train(model, train_loader, optimizer, criterion, callbacks, args)
        metrics = evaluate(model, valid_loader, criterion)
        for cb in callbacks:
            cb.on_epoch_end(epoch, metrics)
        print(f"epoch {epoch} flag={args.flag} train {loss:.4f} valid {metrics['valid_loss']:.4f} acc {metrics.get('train_acc', 0):.3f}")
    return model


if __name__ == "__main__":
    main()
