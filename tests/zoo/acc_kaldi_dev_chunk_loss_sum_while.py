# Source: https://github.com/mravanelli/pytorch-kaldi/pull/41
# Shape: one function serves training and dev chunks; on dev chunks it runs the recurrent acoustic model without torch.no_grad() and sums the per-batch loss tensors in a while loop over batch offsets, so every batch's graph stays chained to the running sum until the chunk ends (the error next to it comes from argmax and carries none).
# Verdict: leak
import torch
import torch.nn as nn


class AcousticRNN(nn.Module):
    def __init__(self, feat_dim, hidden, n_states):
        super().__init__()
        self.rnn = nn.GRU(feat_dim, hidden, num_layers=4)
        self.out = nn.Linear(hidden, n_states)

    def forward(self, feats):
        seq, _ = self.rnn(feats)
        return torch.log_softmax(self.out(seq), dim=-1)


def run_chunk(net, optimizer, feats, labels, to_do, batch_size=8, seq_len=500):
    cost = nn.NLLLoss()
    if to_do == "train":
        net.train()
    else:
        net.eval()
    loss_sum = 0
    err_sum = 0
    beg = 0
    n_batches = feats.shape[1] // batch_size
    while beg < n_batches * batch_size:
        inp = feats[:seq_len, beg:beg + batch_size]
        lab = labels[:seq_len, beg:beg + batch_size]
        pout = net(inp)
        loss = cost(pout.view(-1, pout.shape[-1]), lab.reshape(-1))
        err = torch.mean((pout.argmax(-1) != lab).float())
        if to_do == "train":
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        loss_sum = loss_sum + loss  # TLK101
        err_sum = err_sum + err
        beg += batch_size
    return loss_sum.item() / n_batches, err_sum.item() / n_batches
