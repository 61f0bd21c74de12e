# Modelled on the layout of joeynmt/joeynmt (training.py, model.py, search.py, prediction.py, loss.py, helpers.py); code written anew.
import argparse

import torch

from helpers import BOS_ID, EOS_ID, PAD_ID, set_seed
from model import Model
from search import greedy
from training import TrainManager

VOCAB = 12


def make_data(n_batches, batch_size, length, seed):
    """Synthetic reversal task: the target is the source read backwards, framed by BOS/EOS."""
    g = torch.Generator().manual_seed(seed)
    data = []
    for _ in range(n_batches):
        src = torch.randint(3, VOCAB, (batch_size, length), generator=g)
        body = src.flip(1)
        trg = torch.cat([torch.full((batch_size, 1), BOS_ID), body, torch.full((batch_size, 1), EOS_ID)], dim=1)
        data.append((src, trg))
    return data


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--train_batches", type=int, default=5)
    ap.add_argument("--validation_freq", type=int, default=4)
    ap.add_argument("--beam_size", type=int, default=2)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args(argv)
    set_seed(args.seed)
    cfg = {
        "epochs": args.epochs, "learning_rate": 3e-3, "label_smoothing": 0.1, "clip_grad_norm": 1.0,
        "beam_size": args.beam_size, "alpha": 0.6, "max_output_length": 6, "validation_freq": args.validation_freq,
    }
    train_data = make_data(args.train_batches, 4, 5, args.seed)
    valid_data = make_data(1, 2, 5, args.seed + 1)
    model = Model(VOCAB, VOCAB)
    trainer = TrainManager(model, cfg)
    history = trainer.train_and_validate(train_data, valid_data)
    model.eval()
    test_src = make_data(1, 2, 5, args.seed + 2)[0][0]
    out = greedy(model, test_src, 6)
    print("validations: %d, greedy output shape %s, pad id %d" % (len(history), tuple(out.shape), PAD_ID))
    return history


if __name__ == "__main__":
    main()
