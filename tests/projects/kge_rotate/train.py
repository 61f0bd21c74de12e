"""RotatE training driver (modelled on DeepGraphLearning/KnowledgeGraphEmbedding codes/run.py)."""
import argparse

import torch

from kge import (KGEModel, TrainDataset, BidirectionalOneShotIterator, make_triples,
                 HardNegativeQueue, EmbeddingGradPenalty)


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--max_steps", type=int, default=20)
    p.add_argument("--log_steps", type=int, default=100)
    p.add_argument("--valid_steps", type=int, default=10)
    p.add_argument("--hidden_dim", type=int, default=8)
    p.add_argument("--gamma", type=float, default=6.0)
    p.add_argument("--negative_sample_size", type=int, default=8)
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--adversarial_temperature", type=float, default=1.0)
    p.add_argument("--regularization", type=float, default=1e-4)
    p.add_argument("--lr", type=float, default=0.01)
    return p.parse_args(argv)


def log_metrics(mode, step, metrics):
    for k, v in metrics.items():
        print(f"{mode} {k} at step {step}: {float(v):.4f}")


def main(argv=None):
    args = parse_args(argv)
    nentity, nrelation = 40, 4
    triples = make_triples(nentity, nrelation)
    train_triples, valid_triples = triples[:360], triples[360:368]
    model = KGEModel(nentity, nrelation, args.hidden_dim, args.gamma)
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=args.lr)
    head = TrainDataset(train_triples, nentity, args.negative_sample_size, "head-batch", args.batch_size, seed=1)
    tail = TrainDataset(train_triples, nentity, args.negative_sample_size, "tail-batch", args.batch_size, seed=2)
    train_iterator = BidirectionalOneShotIterator(head, tail)
    hard_queue = HardNegativeQueue()
    penalty = EmbeddingGradPenalty()
    training_logs = []
    valid_history = []
    for step in range(args.max_steps):
        log = KGEModel.train_step(model, optimizer, train_iterator, args, hard_queue, penalty)
        training_logs.append(log)  # expect: TLK102
        if (step + 1) % args.log_steps == 0:
            metrics = {m: sum(lg[m] for lg in training_logs) / len(training_logs) for m in training_logs[0]}
            log_metrics("Training average", step, metrics)
            training_logs = []
        if (step + 1) % args.valid_steps == 0:
            metrics = KGEModel.test_step(model, valid_triples, args)
            valid_history.append(metrics)
            log_metrics("Valid", step, metrics)
    if training_logs:
        metrics = {m: sum(lg[m] for lg in training_logs) / len(training_logs) for m in training_logs[0]}
        log_metrics("Training average", args.max_steps, metrics)
    print("grad-norm mean", penalty.stats())
    return model


if __name__ == "__main__":
    main()
