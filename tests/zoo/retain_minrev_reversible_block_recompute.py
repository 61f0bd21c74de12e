# Source: https://github.com/karttikeya/minREV/issues/8
# Shape: a reversible ViT-style block recomputes its G (MLP) and F (attention-like) sub-blocks inside a custom autograd Function's backward and differentiates each recomputed sub-graph with .backward(grad, retain_graph=True); the two backward passes go through disjoint freshly built sub-graphs and nothing backwards through either again, so both retain_graph=True flags only keep saved activations alive longer (the issue asks why they are set; retain_graph=False would save memory).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 8


class MLPSubblock(nn.Module):
    def __init__(self, dim, ratio=4):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * ratio), nn.GELU(), nn.Linear(dim * ratio, dim))

    def forward(self, x):
        return self.mlp(self.norm(x))


class MixSubblock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        attn = torch.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
        return attn @ v


class ReversibleBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.F = MixSubblock(dim)
        self.G = MLPSubblock(dim)

    def forward(self, x1, x2):
        y1 = x1 + self.F(x2)
        y2 = x2 + self.G(y1)
        return y1, y2

    def backward_pass(self, y1, y2, dy1, dy2):
        with torch.enable_grad():
            y1.requires_grad = True
            g_y1 = self.G(y1)
            g_y1.backward(dy2, retain_graph=True)  # TLK201
        with torch.no_grad():
            x2 = y2 - g_y1
            del g_y1
            dy1 = dy1 + y1.grad
            y1.grad = None
        with torch.enable_grad():
            x2.requires_grad = True
            f_x2 = self.F(x2)
            f_x2.backward(dy1, retain_graph=True)  # TLK201
        with torch.no_grad():
            x1 = y1 - f_x2
            del f_x2, y1
            dy2 = dy2 + x2.grad
            x2.grad = None
            x2 = x2.detach()
        return x1, x2, dy1, dy2


class RevBackProp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, blocks):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        for blk in blocks:
            x1, x2 = blk(x1, x2)
        ctx.save_for_backward(x1.detach(), x2.detach())
        ctx.blocks = blocks
        return torch.cat([x1, x2], dim=-1)

    @staticmethod
    def backward(ctx, dx):
        dx1, dx2 = torch.chunk(dx, 2, dim=-1)
        y1, y2 = ctx.saved_tensors
        for blk in ctx.blocks[::-1]:
            y1, y2, dx1, dx2 = blk.backward_pass(y1, y2, dx1, dx2)
        return torch.cat([dx1, dx2], dim=-1), None


class RevNet(nn.Module):
    def __init__(self, dim=64, depth=4, tokens=64):
        super().__init__()
        self.embed = nn.Linear(16, 2 * dim)
        self.blocks = nn.ModuleList([ReversibleBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(2 * dim, 10)

    def forward(self, x):
        h = self.embed(x)
        h = RevBackProp.apply(h, self.blocks)
        return self.head(h.mean(dim=1))


model = RevNet()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(STEPS):
    x, y = torch.randn(8, 64, 16), torch.randint(0, 10, (8,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
print("loss", loss.item())
