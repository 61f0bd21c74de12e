# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Shape: the RNN hidden state is carried from chunk to chunk without detach, and backward(retain_graph=True) silences the "backward through the graph a second time" error, so the graph chains every chunk and each backward walks (and keeps) all of history.
# Verdict: leak
"""sin -> cos regression with an RNN cell over a long stream cut into chunks (truncated BPTT)."""
import math
import torch
import torch.nn as nn

HID, CHUNK, LR = 16, 10, 0.02


class StreamRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNNCell(1, HID)
        self.out = nn.Linear(HID, 1)

    def forward(self, x_chunk, h):
        preds = []
        for t in range(x_chunk.size(0)):
            h = self.cell(x_chunk[t:t + 1], h)
            preds.append(self.out(h))
        return torch.cat(preds, 0), h


def sgd_update(model, lr):
    # old-style manual update (word_language_model style), through .data
    for p in model.parameters():
        if p.grad is not None:
            p.data.add_(p.grad.data, alpha=-lr)
            p.grad = None


def make_batches(n):
    out = []
    for i in range(n):
        steps = torch.linspace(i * math.pi, (i + 1) * math.pi, CHUNK)
        out.append((torch.sin(steps)[:, None], torch.cos(steps)[:, None]))
    return out


def run(batches):
    torch.manual_seed(0)
    model = StreamRNN()
    h_state = torch.zeros(1, HID)
    losses = []
    for x, y in batches:
        pred, h_new = model(x, h_state)
        h_state = h_new
        loss = nn.functional.mse_loss(pred, y)
        loss.backward(retain_graph=True)  # TLK202
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        sgd_update(model, LR)
        losses.append(loss.item())
    return losses[-3:]


if __name__ == "__main__":
    print(run(make_batches(20)))
