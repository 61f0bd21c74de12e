# Source: https://github.com/pytorch/examples/blob/cd01f93000a6679e768700dd29e417a1e5fd10e5/word_language_model/main.py
# Shape: word-level LSTM language model trained with truncated BPTT; a recursive helper defined in this file detaches the (h, c) state at the start of every batch
# Verdict: clean
import torch
import torch.nn as nn


def detach_state(state):
    """Cut the state off the graph of the batch that produced it."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    return tuple(detach_state(s) for s in state)


def get_chunk(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def train_epoch(model, train_data, criterion, lr, bptt=35, clip=0.25):
    model.train()
    ntokens = model.ntoken
    state = model.init_hidden(train_data.size(1))
    for i in range(0, train_data.size(0) - 1, bptt):
        inputs, targets = get_chunk(train_data, i, bptt)
        state = detach_state(state)
        model.zero_grad()
        logits, state = model(inputs, state)
        loss = criterion(logits.view(-1, ntokens), targets)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
