# Source: https://github.com/spro/practical-pytorch/pull/29
# Shape: nothing is called loss or model: net is an nn.Sequential trained by an optimizer, objective is backwarded each step, and agg = agg + objective keeps the graph of every step.
# Verdict: leak
import torch
import torch.nn as nn

net = nn.Sequential(nn.Embedding(5000, 128), nn.GRU(128, 256, batch_first=True))
head = nn.Linear(256, 5000)
opt = torch.optim.Adam(list(net.parameters()) + list(head.parameters()), lr=3e-4)
nll = nn.CrossEntropyLoss()


def run(pairs, n_iters, print_every=500):
    agg = 0
    for it in range(1, n_iters + 1):
        src, tgt = pairs[it % len(pairs)]
        opt.zero_grad()
        hidden_seq, _ = net(src)
        objective = nll(head(hidden_seq).flatten(0, 1), tgt.flatten())
        objective.backward()
        opt.step()
        agg = agg + objective  # TLK101
        if it % print_every == 0:
            print(it, agg / print_every)
            agg = 0
