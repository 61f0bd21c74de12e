# Source: https://github.com/kimiyoung/transformer-xl/blob/81b1b1955b5729b311e1548998eb2a89cb528178/pytorch/mem_transformer.py
# Shape: a segment-recurrent model returns [loss] + new_mems, each memory built under torch.no_grad() and detached; the loop takes the memories as out[1:] and feeds them into the next segment, so only out[0] (the loss) holds a graph
# Verdict: clean
import torch
from torch import nn


class SegmentMemoryLM(nn.Module):
    def __init__(self, layers=2, width=16, memory_length=8):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.head = nn.Linear(width, 1)
        self.memory_length = memory_length

    def refreshed_memories(self, hiddens, memories):
        with torch.no_grad():
            refreshed = []
            for hidden, memory in zip(hiddens, memories):
                refreshed.append(torch.cat([memory, hidden], dim=0)[-self.memory_length:].detach())
        return refreshed

    def forward(self, x, *memories):
        if not memories:
            memories = [torch.zeros(0, x.size(1)) for _ in self.blocks]
        hiddens, h = [], x
        for block, memory in zip(self.blocks, memories):
            h = torch.tanh(block(h) + memory.sum())
            hiddens.append(h)
        loss = self.head(h).pow(2).mean()
        return [loss] + self.refreshed_memories(hiddens, memories)


model = SegmentMemoryLM()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
memories = tuple()
for segment in range(6):
    out = model(torch.randn(4, 16), *memories)
    memories = out[1:]
    optimizer.zero_grad()
    out[0].backward()
    optimizer.step()
