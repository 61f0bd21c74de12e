# Source: https://github.com/pyg-team/pytorch_geometric/issues/9395
# Shape: a TGN memory module keeps per-node memory on self across batches and the evaluation loop collects y_pred tensors in lists, which looks like a carried graph and stored outputs, but memory.detach() runs after every optimizer step and evaluation runs under torch.no_grad(), so no batch graph survives.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeEncoder(nn.Module):
    def __init__(self, out_channels):
        super().__init__()
        self.lin = nn.Linear(1, out_channels)

    def forward(self, t):
        return self.lin(t.view(-1, 1)).cos()


class TGNMemory(nn.Module):
    def __init__(self, num_nodes, raw_msg_dim, memory_dim, time_dim):
        super().__init__()
        self.num_nodes = num_nodes
        self.memory_dim = memory_dim
        self.time_enc = TimeEncoder(time_dim)
        self.gru = nn.GRUCell(2 * memory_dim + raw_msg_dim + time_dim, memory_dim)
        self.register_buffer('memory', torch.zeros(num_nodes, memory_dim))
        self.register_buffer('last_update', torch.zeros(num_nodes))
        self.pending = None

    def reset_state(self):
        self.memory.zero_()
        self.last_update.zero_()
        self.pending = None

    def detach(self):
        self.memory.detach_()

    def forward(self, n_id):
        if self.pending is None:
            return self.memory[n_id], self.last_update[n_id]
        src, dst, t, raw_msg = self.pending
        t_rel = t - self.last_update[src]
        msg = torch.cat([self.memory[src], self.memory[dst], raw_msg, self.time_enc(t_rel)], dim=-1)
        new_mem = self.gru(msg, self.memory[src])
        memory = self.memory.index_copy(0, src, new_mem)
        return memory[n_id], self.last_update[n_id]

    def update_state(self, src, dst, t, raw_msg):
        memory, _ = self.forward(torch.arange(self.num_nodes))
        self.memory = memory
        self.last_update[src] = t
        self.pending = (src, dst, t, raw_msg)


class LinkPredictor(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.lin_src = nn.Linear(in_channels, in_channels)
        self.lin_dst = nn.Linear(in_channels, in_channels)
        self.lin_final = nn.Linear(in_channels, 1)

    def forward(self, z_src, z_dst):
        return self.lin_final((self.lin_src(z_src) + self.lin_dst(z_dst)).relu())


def make_batches(n):
    g = torch.Generator().manual_seed(9395)
    out = []
    for i in range(n):
        src = torch.randperm(100, generator=g)[:30]
        dst = torch.randint(0, 100, (30,), generator=g)
        t = torch.full((30,), float(i + 1))
        msg = torch.randn(30, 8, generator=g)
        out.append((src, dst, t, msg))
    return out


def run(batches):
    torch.manual_seed(0)
    memory = TGNMemory(100, 8, 32, 16)
    link_pred = LinkPredictor(32)
    optimizer = torch.optim.Adam(set(memory.parameters()) | set(link_pred.parameters()), lr=1e-3)
    neg_gen = torch.Generator().manual_seed(0)
    memory.train()
    memory.reset_state()
    total_loss = 0.0
    split = max(1, len(batches) * 4 // 5)
    for src, dst, t, msg in batches[:split]:
        optimizer.zero_grad()
        neg_dst = torch.randint(0, 100, (src.size(0),), generator=neg_gen)
        n_id = torch.arange(100)
        z, last_update = memory(n_id)
        pos_out = link_pred(z[src], z[dst])
        neg_out = link_pred(z[src], z[neg_dst])
        loss = F.binary_cross_entropy_with_logits(pos_out, torch.ones_like(pos_out))
        loss = loss + F.binary_cross_entropy_with_logits(neg_out, torch.zeros_like(neg_out))
        memory.update_state(src, dst, t, msg)
        loss.backward()
        optimizer.step()
        memory.detach()
        total_loss += float(loss) * src.size(0)

    memory.eval()
    y_preds, y_trues = [], []
    with torch.no_grad():
        for src, dst, t, msg in batches[split:]:
            neg_dst = torch.randint(0, 100, (src.size(0),), generator=neg_gen)
            z, _ = memory(torch.arange(100))
            pos_out = link_pred(z[src], z[dst])
            neg_out = link_pred(z[src], z[neg_dst])
            y_preds.append(torch.cat([pos_out, neg_out], dim=0).sigmoid())
            y_trues.append(torch.cat([torch.ones(pos_out.size(0)), torch.zeros(neg_out.size(0))], dim=0))
            memory.update_state(src, dst, t, msg)
    y_pred = torch.cat(y_preds).view(-1)
    y_true = torch.cat(y_trues)
    acc = float(((y_pred > 0.5).float() == y_true).float().mean())
    print(f'Loss: {total_loss / (split * 30):.4f}, Val Acc: {acc:.4f}')
    return total_loss / (split * 30)


if __name__ == "__main__":
    print(run(make_batches(5)))
