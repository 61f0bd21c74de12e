# Source: https://github.com/jlamprou/Infini-Attention/issues/3
# Shape: an attention layer keeps a compressive memory (M, z) on the module and updates it from the current segment's keys and values without detaching; the training loop backwards each segment with retain_graph=True to silence the second-backward error, so memory and step time grow with every segment
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class CompressiveAttention(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads, self.d = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.gate = nn.Parameter(torch.zeros(heads, 1, 1))
        self.M = None
        self.z = None

    def reset_memory(self, bsz, device):
        self.M = torch.zeros(bsz, self.heads, self.d, self.d, device=device)
        self.z = torch.zeros(bsz, self.heads, self.d, 1, device=device)

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, self.d).permute(2, 0, 3, 1, 4)
        sq, sk = F.elu(q) + 1, F.elu(k) + 1
        mem_out = (sq @ self.M) / (sq @ self.z + 1e-6)
        local = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        g = torch.sigmoid(self.gate)
        mixed = g * mem_out + (1 - g) * local
        self.M = self.M + sk.transpose(-2, -1) @ v  # TLK103
        self.z = self.z + sk.sum(dim=-2, keepdim=True).transpose(-2, -1)
        return self.out(mixed.transpose(1, 2).reshape(b, n, -1))


def train_document(model, segments, optimizer):
    model.attn.reset_memory(segments[0].size(0), segments[0].device)
    for seg in segments:
        logits = model(seg[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), seg[:, 1:].flatten())
        loss.backward(retain_graph=True)  # TLK202
    optimizer.step()
    optimizer.zero_grad()
