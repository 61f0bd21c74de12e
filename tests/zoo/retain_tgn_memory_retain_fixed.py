# Source: https://github.com/pyg-team/pytorch_geometric/blob/08ff4072c5c96777b3a09f011dfcd92bb856aa7c/examples/tgn.py
# Shape: fixed twin: loss.backward() without retain_graph and memory.detach() after the optimizer step as in the PyG example, so each batch's memory-update graph is freed; the GRU still gets gradients through the stored-message update computed in the next forward.
# Verdict: clean
import torch
from torch.nn import GRUCell, Linear

NUM_NODES = 64
MSG_DIM = 8
MEMORY_DIM = TIME_DIM = EMBEDDING_DIM = 32
BATCH_EVENTS = 48


class TimeEncoder(torch.nn.Module):
    def __init__(self, out_channels):
        super().__init__()
        self.out_channels = out_channels
        self.lin = Linear(1, out_channels)

    def forward(self, t):
        return self.lin(t.view(-1, 1)).cos()


class IdentityMessage(torch.nn.Module):
    def __init__(self, raw_msg_dim, memory_dim, time_dim):
        super().__init__()
        self.out_channels = raw_msg_dim + 2 * memory_dim + time_dim

    def forward(self, z_src, z_dst, raw_msg, t_enc):
        return torch.cat([z_src, z_dst, raw_msg, t_enc], dim=-1)


class LastAggregator(torch.nn.Module):
    def forward(self, msg, index, t, dim_size):
        # keep the most recent message per node
        out = msg.new_zeros(dim_size, msg.size(-1))
        order = torch.argsort(t)
        out = out.index_copy(0, index[order], msg[order])
        return out


class TGNMemory(torch.nn.Module):
    """Compact version of torch_geometric.nn.TGNMemory: raw messages of the last
    batch are stored and turned into a GRU memory update on the next access."""

    def __init__(self, num_nodes, raw_msg_dim, memory_dim, time_dim, message_module, aggregator_module):
        super().__init__()
        self.num_nodes = num_nodes
        self.time_enc = TimeEncoder(time_dim)
        self.msg_s_module = message_module
        self.aggr_module = aggregator_module
        self.gru = GRUCell(message_module.out_channels, memory_dim)
        self.register_buffer('memory', torch.zeros(num_nodes, memory_dim))
        self.register_buffer('last_update', torch.zeros(num_nodes))
        self.msg_store = None

    def reset_state(self):
        self.memory = torch.zeros_like(self.memory)
        self.last_update = torch.zeros_like(self.last_update)
        self.msg_store = None

    def detach(self):
        """Detaches the memory from gradient computation."""
        self.memory = self.memory.detach()

    def forward(self, n_id):
        if self.training:
            memory, last_update = self._get_updated_memory()
        else:
            memory, last_update = self.memory, self.last_update
        return memory[n_id], last_update[n_id]

    def update_state(self, src, dst, t, raw_msg):
        self._update_memory()
        self.msg_store = (src, dst, t, raw_msg)

    def _update_memory(self):
        memory, last_update = self._get_updated_memory()
        self.memory = memory
        self.last_update = last_update

    def _get_updated_memory(self):
        if self.msg_store is None:
            return self.memory, self.last_update
        src, dst, t, raw_msg = self.msg_store
        rel_t = t - self.last_update[src]
        t_enc = self.time_enc(rel_t.to(raw_msg.dtype))
        msg_s = self.msg_s_module(self.memory[src], self.memory[dst], raw_msg, t_enc)
        msg_d = self.msg_s_module(self.memory[dst], self.memory[src], raw_msg, t_enc)
        msg = torch.cat([msg_s, msg_d], 0)
        idx = torch.cat([src, dst], 0)
        n_id = idx.unique()
        aggr = self.aggr_module(msg, idx, torch.cat([t, t], 0), self.num_nodes)[n_id]
        memory = self.memory.clone()
        memory[n_id] = self.gru(aggr, self.memory[n_id])
        last_update = self.last_update.clone()
        last_update[src] = t.to(last_update.dtype)
        last_update[dst] = t.to(last_update.dtype)
        return memory, last_update


class GraphAttentionEmbedding(torch.nn.Module):
    def __init__(self, in_channels, out_channels, msg_dim, time_enc):
        super().__init__()
        self.time_enc = time_enc
        self.lin = Linear(in_channels + time_enc.out_channels, out_channels)

    def forward(self, x, last_update, t):
        rel_t = last_update - t
        rel_t_enc = self.time_enc(rel_t.to(x.dtype))
        return self.lin(torch.cat([x, rel_t_enc], dim=-1)).relu()


class LinkPredictor(torch.nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.lin_src = Linear(in_channels, in_channels)
        self.lin_dst = Linear(in_channels, in_channels)
        self.lin_final = Linear(in_channels, 1)

    def forward(self, z_src, z_dst):
        h = self.lin_src(z_src) + self.lin_dst(z_dst)
        h = h.relu()
        return self.lin_final(h)


def make_batches(n):
    # one event-batch seed per step of the temporal loader
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def temporal_batch(seed, step):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, NUM_NODES // 2, (BATCH_EVENTS,), generator=g)
    dst = torch.randint(NUM_NODES // 2, NUM_NODES, (BATCH_EVENTS,), generator=g)
    neg_dst = torch.randint(NUM_NODES // 2, NUM_NODES, (BATCH_EVENTS,), generator=g)
    t = step * 100.0 + torch.sort(torch.rand(BATCH_EVENTS, generator=g) * 100.0).values
    msg = torch.randn(BATCH_EVENTS, MSG_DIM, generator=g)
    return src, dst, neg_dst, t, msg


def sgd_step(params, lr):
    # plain SGD on the raw .data
    for p in params:
        if p.grad is not None:
            p.data.add_(p.grad.data, alpha=-lr)
            p.grad = None


def run(batches):
    memory = TGNMemory(NUM_NODES, MSG_DIM, MEMORY_DIM, TIME_DIM,
                       message_module=IdentityMessage(MSG_DIM, MEMORY_DIM, TIME_DIM),
                       aggregator_module=LastAggregator())
    gnn = GraphAttentionEmbedding(in_channels=MEMORY_DIM, out_channels=EMBEDDING_DIM,
                                  msg_dim=MSG_DIM, time_enc=memory.time_enc)
    link_pred = LinkPredictor(in_channels=EMBEDDING_DIM)
    params = list(set(memory.parameters()) | set(gnn.parameters()) | set(link_pred.parameters()))
    criterion = torch.nn.BCEWithLogitsLoss()

    memory.train()
    gnn.train()
    link_pred.train()
    memory.reset_state()  # Start with a fresh memory.

    total_loss = 0
    for step, seed in enumerate(batches):
        src, pos_dst, neg_dst, t, msg = temporal_batch(seed, step)
        n_id = torch.cat([src, pos_dst, neg_dst]).unique()
        assoc = torch.empty(NUM_NODES, dtype=torch.long)
        assoc[n_id] = torch.arange(n_id.size(0))

        # Get updated memory of all nodes involved in the computation.
        z, last_update = memory(n_id)
        z = gnn(z, last_update, t.max())
        pos_out = link_pred(z[assoc[src]], z[assoc[pos_dst]])
        neg_out = link_pred(z[assoc[src]], z[assoc[neg_dst]])

        loss = criterion(pos_out, torch.ones_like(pos_out))
        loss += criterion(neg_out, torch.zeros_like(neg_out))

        # Update memory with ground-truth state.
        memory.update_state(src, pos_dst, t, msg)

        loss.backward()
        sgd_step(params, lr=1e-3)
        memory.detach()
        total_loss += float(loss) * BATCH_EVENTS

    return total_loss / (len(batches) * BATCH_EVENTS)
