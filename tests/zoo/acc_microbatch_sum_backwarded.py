# Source: https://discuss.pytorch.org/t/gpu-memory-increase-while-i-wanna-to-backward-with-accumulative-loss/43284
# Shape: variable-length sequences in one batch: per-sequence losses are summed into a loss that is reset for every batch and backwarded at the end of the step; the sum is the training signal, not a leak.
# Verdict: clean
import torch
import torch.nn as nn


def train(encoder: nn.Module, batches, lr=1e-3):
    criterion = nn.CTCLoss()
    optimizer = torch.optim.Adam(encoder.parameters(), lr=lr)
    for batch in batches:
        optimizer.zero_grad()
        batch_loss = 0
        for seq, target, seq_len, target_len in batch:
            log_probs = encoder(seq.unsqueeze(1)).log_softmax(-1)
            batch_loss += criterion(log_probs, target.unsqueeze(0), seq_len, target_len)
        batch_loss = batch_loss / len(batch)
        batch_loss.backward()
        optimizer.step()
