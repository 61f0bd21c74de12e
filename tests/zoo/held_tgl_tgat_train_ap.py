# Source: https://github.com/amazon-science/tgl/issues/24
# Shape: the TGAT training loop logs the mean positive-edge probability of every batch into score_log['pos'] as an attached tensor, so each batch's attention/edge-predictor graph stays alive until the epoch summary is printed.
# Verdict: leak
import torch
import torch.nn as nn


class TimeEncode(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.w = nn.Linear(1, dim)
        self.w.weight = nn.Parameter((1 / 10 ** torch.linspace(0, 9, dim)).reshape(dim, -1))
        self.w.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, t):
        return torch.cos(self.w(t.reshape((-1, 1))))


class TransfomerAttentionLayer(nn.Module):
    def __init__(self, dim_node_feat, dim_time, dim_out, num_head=2):
        super().__init__()
        self.num_head = num_head
        self.time_enc = TimeEncode(dim_time)
        self.w_q = nn.Linear(dim_node_feat + dim_time, dim_out)
        self.w_k = nn.Linear(dim_node_feat + dim_time, dim_out)
        self.w_v = nn.Linear(dim_node_feat + dim_time, dim_out)
        self.w_out = nn.Linear(dim_node_feat + dim_out, dim_out)
        self.layer_norm = nn.LayerNorm(dim_out)

    def forward(self, root_feat, nbr_feat, nbr_dt):
        n, k, _ = nbr_feat.shape
        zero_time_feat = self.time_enc(torch.zeros(n))
        time_feat = self.time_enc(nbr_dt.reshape(-1)).reshape(n, k, -1)
        Q = self.w_q(torch.cat([root_feat, zero_time_feat], dim=1)).reshape(n, 1, self.num_head, -1)
        K = self.w_k(torch.cat([nbr_feat, time_feat], dim=2)).reshape(n, k, self.num_head, -1)
        V = self.w_v(torch.cat([nbr_feat, time_feat], dim=2)).reshape(n, k, self.num_head, -1)
        att = torch.softmax(torch.nn.functional.leaky_relu((Q * K).sum(-1), 0.2), dim=1)
        rst = (att.unsqueeze(-1) * V).sum(1).reshape(n, -1)
        rst = self.w_out(torch.cat([rst, root_feat], dim=1))
        return self.layer_norm(torch.relu(rst))


class EdgePredictor(nn.Module):
    def __init__(self, dim_in):
        super().__init__()
        self.src_fc = nn.Linear(dim_in, dim_in)
        self.dst_fc = nn.Linear(dim_in, dim_in)
        self.out_fc = nn.Linear(dim_in, 1)

    def forward(self, h, neg_samples=1):
        num_edge = h.shape[0] // (neg_samples + 2)
        h_src = self.src_fc(h[:num_edge])
        h_pos_dst = self.dst_fc(h[num_edge:2 * num_edge])
        h_neg_dst = self.dst_fc(h[2 * num_edge:])
        h_pos_edge = torch.relu(h_src + h_pos_dst)
        h_neg_edge = torch.relu(h_src.tile(neg_samples, 1) + h_neg_dst)
        return self.out_fc(h_pos_edge), self.out_fc(h_neg_edge)


class GeneralModel(nn.Module):
    def __init__(self, dim_node, dim_time=32, dim_out=64):
        super().__init__()
        self.layer = TransfomerAttentionLayer(dim_node, dim_time, dim_out)
        self.edge_predictor = EdgePredictor(dim_out)

    def forward(self, mfgs, neg_samples=1):
        root_feat, nbr_feat, nbr_dt = mfgs
        out = self.layer(root_feat, nbr_feat, nbr_dt)
        return self.edge_predictor(out, neg_samples=neg_samples)


def average_precision_score(y_true, y_score):
    order = torch.argsort(y_score, descending=True)
    y = y_true[order]
    tp = torch.cumsum(y, 0)
    precision = tp / torch.arange(1, len(y) + 1)
    return float((precision * y).sum() / y.sum())


def prepare_input(rows, node_feats, num_nbr=10):
    src, dst, neg, ts, nbrs, nbr_ts = rows
    root_nodes = torch.cat([src, dst, neg])
    root_ts = ts.repeat(3)
    nbr_ids = nbrs.repeat(3, 1)
    nbr_dt = root_ts.unsqueeze(1) - nbr_ts.repeat(3, 1)
    return node_feats[root_nodes], node_feats[nbr_ids], nbr_dt


def make_batches(n):
    g = torch.Generator().manual_seed(24)
    batches = []
    for i in range(n):
        src = torch.randint(0, 500, (100,), generator=g)
        dst = torch.randint(0, 500, (100,), generator=g)
        neg = torch.randint(0, 500, (100,), generator=g)
        ts = torch.arange(100, dtype=torch.float32) + 100 * i
        nbrs = torch.randint(0, 500, (100, 10), generator=g)
        nbr_ts = ts.unsqueeze(1) - torch.rand(100, 10, generator=g) * 50
        batches.append((src, dst, neg, ts, nbrs, nbr_ts))
    return batches


def run(batches):
    torch.manual_seed(0)
    node_feats = torch.randn(500, 32, generator=torch.Generator().manual_seed(1))
    model = GeneralModel(dim_node=32)
    creterion = torch.nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    total_loss = 0
    aps = list()
    score_log = {'pos': list(), 'neg': list()}
    model.train()
    for rows in batches:
        mfgs = prepare_input(rows, node_feats)
        optimizer.zero_grad()
        pred_pos, pred_neg = model(mfgs)
        loss = creterion(pred_pos, torch.ones_like(pred_pos))
        loss += creterion(pred_neg, torch.zeros_like(pred_neg))
        total_loss += float(loss) * len(rows[0])
        loss.backward()
        optimizer.step()
        y_pred = torch.cat([pred_pos, pred_neg], dim=0).sigmoid()
        y_true = torch.cat([torch.ones(pred_pos.size(0)), torch.zeros(pred_neg.size(0))], dim=0)
        aps.append(average_precision_score(y_true, y_pred.squeeze()))
        score_log['pos'].append(pred_pos.sigmoid().mean())  # TLK102
        score_log['neg'].append(float(pred_neg.sigmoid().mean()))
    train_ap = sum(aps) / len(aps)
    gap = sum(score_log['pos']) / len(score_log['pos']) - sum(score_log['neg']) / len(score_log['neg'])
    print('\ttrain loss:{:.4f}  train ap:{:4f}  score gap:{:.4f}'.format(total_loss / (len(batches) * 100), train_ap, float(gap)))
    return total_loss / (len(batches) * 100)

if __name__ == "__main__":
    print(run(make_batches(5)))
