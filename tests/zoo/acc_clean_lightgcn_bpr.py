# Source: https://github.com/gusye1234/LightGCN-PyTorch/blob/024317535ae27cf07817795b37f95cf6c12a96a5/code/Procedure.py
# Shape: train_original sums `aver_loss += cri` over BPR minibatches, but BPRLoss.stageOne does backward/step itself and returns loss.cpu().item(), so the epoch sum is a float and every propagation graph dies inside stageOne.
# Verdict: clean
import torch
from torch import nn, optim

N_USERS, M_ITEMS = 40, 60


class LightGCN(nn.Module):
    def __init__(self, config, n_users, m_items, graph):
        super().__init__()
        self.num_users, self.num_items = n_users, m_items
        self.latent_dim = config['latent_dim_rec']
        self.n_layers = config['lightGCN_n_layers']
        self.embedding_user = nn.Embedding(self.num_users, self.latent_dim)
        self.embedding_item = nn.Embedding(self.num_items, self.latent_dim)
        nn.init.normal_(self.embedding_user.weight, std=0.1)
        nn.init.normal_(self.embedding_item.weight, std=0.1)
        self.f = nn.Sigmoid()
        self.Graph = graph

    def computer(self):
        """propagate methods for lightGCN"""
        users_emb = self.embedding_user.weight
        items_emb = self.embedding_item.weight
        all_emb = torch.cat([users_emb, items_emb])
        embs = [all_emb]
        for layer in range(self.n_layers):
            all_emb = torch.sparse.mm(self.Graph, all_emb)
            embs.append(all_emb)
        embs = torch.stack(embs, dim=1)
        light_out = torch.mean(embs, dim=1)
        users, items = torch.split(light_out, [self.num_users, self.num_items])
        return users, items

    def getEmbedding(self, users, pos_items, neg_items):
        all_users, all_items = self.computer()
        users_emb = all_users[users]
        pos_emb = all_items[pos_items]
        neg_emb = all_items[neg_items]
        users_emb_ego = self.embedding_user(users)
        pos_emb_ego = self.embedding_item(pos_items)
        neg_emb_ego = self.embedding_item(neg_items)
        return users_emb, pos_emb, neg_emb, users_emb_ego, pos_emb_ego, neg_emb_ego

    def bpr_loss(self, users, pos, neg):
        (users_emb, pos_emb, neg_emb, userEmb0, posEmb0, negEmb0) = self.getEmbedding(users.long(), pos.long(), neg.long())
        reg_loss = (1 / 2) * (userEmb0.norm(2).pow(2) + posEmb0.norm(2).pow(2) + negEmb0.norm(2).pow(2)) / float(len(users))
        pos_scores = torch.mul(users_emb, pos_emb).sum(dim=1)
        neg_scores = torch.mul(users_emb, neg_emb).sum(dim=1)
        loss = torch.mean(torch.nn.functional.softplus(neg_scores - pos_scores))
        return loss, reg_loss


class BPRLoss:
    def __init__(self, recmodel, config):
        self.model = recmodel
        self.weight_decay = config['decay']
        self.lr = config['lr']
        self.opt = optim.Adam(recmodel.parameters(), lr=self.lr)

    def stageOne(self, users, pos, neg):
        loss, reg_loss = self.model.bpr_loss(users, pos, neg)
        reg_loss = reg_loss * self.weight_decay
        loss = loss + reg_loss
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.cpu().item()


def build_graph():
    g = torch.Generator().manual_seed(7)
    R = (torch.rand(N_USERS, M_ITEMS, generator=g) < 0.1).float()
    adj = torch.zeros(N_USERS + M_ITEMS, N_USERS + M_ITEMS)
    adj[:N_USERS, N_USERS:] = R
    adj[N_USERS:, :N_USERS] = R.t()
    rowsum = adj.sum(1)
    d_inv = rowsum.pow(-0.5)
    d_inv[torch.isinf(d_inv)] = 0.
    norm_adj = d_inv[:, None] * adj * d_inv[None, :]
    return norm_adj.to_sparse().coalesce(), R


def minibatch(*tensors, batch_size):
    for i in range(0, len(tensors[0]), batch_size):
        yield tuple(x[i:i + batch_size] for x in tensors)


def make_batches(n):
    # one UniformSample_original seed per BPR minibatch
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    config = {'latent_dim_rec': 32, 'lightGCN_n_layers': 3, 'decay': 1e-4, 'lr': 1e-3, 'bpr_batch_size': 64}
    Graph, R = build_graph()
    Recmodel = LightGCN(config, N_USERS, M_ITEMS, Graph)
    bpr = BPRLoss(Recmodel, config)
    pos_pairs = R.nonzero()

    Recmodel.train()
    total_batch = len(batches)
    aver_loss = 0.
    for batch_i, seed in enumerate(batches):
        g = torch.Generator().manual_seed(seed)
        pick = torch.randint(0, pos_pairs.size(0), (config['bpr_batch_size'],), generator=g)
        batch_users, batch_pos = pos_pairs[pick, 0], pos_pairs[pick, 1]
        batch_neg = torch.randint(0, M_ITEMS, (config['bpr_batch_size'],), generator=g)
        cri = bpr.stageOne(batch_users, batch_pos, batch_neg)
        aver_loss += cri
    aver_loss = aver_loss / total_batch
    return f"loss{aver_loss:.3f}"
