# Source: https://github.com/gentaiscool/end2end-asr-pytorch/pull/41
# Shape: speech-recognition validation runs the encoder and the CTC loss without torch.no_grad() and sums the loss tensor over the validation set, so every batch's whole forward graph (saved activations included) stays alive until evaluate() returns.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvGRUEncoder(nn.Module):
    def __init__(self, n_mels=40, hidden=256, vocab_size=32):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, hidden, kernel_size=3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, vocab_size)

    def forward(self, feats):
        x = F.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.out(x)


def greedy_decode(log_probs, lengths, blank=0):
    hyps = []
    for seq, n in zip(log_probs.argmax(-1), lengths):
        prev, out = blank, []
        for tok in seq[: int(n)].tolist():
            if tok != prev and tok != blank:
                out.append(tok)
            prev = tok
        hyps.append(out)
    return hyps


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def evaluate(model, valid_loader, blank=0):
    model.eval()
    total_loss, total_err, total_chars = 0, 0, 0
    for feats, feat_lens, targets, target_lens in valid_loader:
        log_probs = model(feats).log_softmax(-1)
        batch_loss = F.ctc_loss(log_probs.transpose(0, 1), targets, feat_lens, target_lens,
                                blank=blank, zero_infinity=True)
        total_loss += batch_loss  # TLK101
        for hyp, ref, n in zip(greedy_decode(log_probs, feat_lens, blank), targets, target_lens):
            total_err += edit_distance(hyp, ref[: int(n)].tolist())
            total_chars += int(n)
    return total_loss.item() / len(valid_loader), total_err / max(total_chars, 1)
