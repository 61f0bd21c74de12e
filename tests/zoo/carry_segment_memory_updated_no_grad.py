# Source: https://github.com/kimiyoung/transformer-xl/blob/81b1b1955b5729b311e1548998eb2a89cb528178/pytorch/mem_transformer.py
# Shape: segment-level recurrent transformer returns new memories that the training loop feeds into the next segment; the model builds them from detached hidden states under torch.no_grad(), so the carried memories hold no graph
# Verdict: clean
import torch
import torch.nn as nn


class SegmentRecurrentLM(nn.Module):
    def __init__(self, n_layer, d_model, mem_len, layers, embed, head):
        super().__init__()
        self.n_layer, self.d_model, self.mem_len = n_layer, d_model, mem_len
        self.layers, self.embed, self.head = layers, embed, head

    def init_mems(self, bsz):
        return [torch.empty(0, bsz, self.d_model) for _ in range(self.n_layer + 1)]

    def update_mems(self, hids, mems):
        with torch.no_grad():
            new_mems = []
            for h, m in zip(hids, mems):
                cat = torch.cat([m, h], dim=0)
                new_mems.append(cat[-self.mem_len:].detach())
        return new_mems

    def forward(self, tokens, targets, *mems):
        if not mems:
            mems = self.init_mems(tokens.size(1))
        h = self.embed(tokens)
        hids = [h]
        for layer, mem in zip(self.layers, mems):
            h = layer(h, mem)
            hids.append(h)
        loss = nn.functional.cross_entropy(self.head(h).flatten(0, 1), targets.flatten())
        return [loss] + self.update_mems(hids, mems)


def train(model, segments, optimizer):
    mems = tuple()
    for tokens, targets in segments:
        loss, *mems = model(tokens, targets, *mems)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
