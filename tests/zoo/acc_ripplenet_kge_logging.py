# Source: https://github.com/qibinc/RippleNet-PyTorch/issues/1
# Shape: the RippleNet train loop sums return_dict["kge_loss"] (an attached tensor) into epoch_kge_loss for the epoch log, so every batch's ripple-set embedding/relation-matrix graph is chained into that running sum and stays alive.
# Verdict: leak
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class RippleNet(nn.Module):
    def __init__(self, args, n_entity, n_relation):
        super(RippleNet, self).__init__()
        self._parse_args(args, n_entity, n_relation)
        self.entity_emb = nn.Embedding(self.n_entity, self.dim)
        self.relation_emb = nn.Embedding(self.n_relation, self.dim * self.dim)
        self.transform_matrix = nn.Linear(self.dim, self.dim, bias=False)
        self.criterion = nn.BCELoss()

    def _parse_args(self, args, n_entity, n_relation):
        self.n_entity = n_entity
        self.n_relation = n_relation
        self.dim = args.dim
        self.n_hop = args.n_hop
        self.kge_weight = args.kge_weight
        self.l2_weight = args.l2_weight
        self.n_memory = args.n_memory

    def forward(self, items, labels, memories_h, memories_r, memories_t):
        item_embeddings = self.entity_emb(items)
        h_emb_list, r_emb_list, t_emb_list = [], [], []
        for i in range(self.n_hop):
            h_emb_list.append(self.entity_emb(memories_h[i]))
            r_emb_list.append(self.relation_emb(memories_r[i]).view(-1, self.n_memory, self.dim, self.dim))
            t_emb_list.append(self.entity_emb(memories_t[i]))
        o_list, item_embeddings = self._key_addressing(h_emb_list, r_emb_list, t_emb_list, item_embeddings)
        scores = self.predict(item_embeddings, o_list)
        return_dict = self._compute_loss(scores, labels, h_emb_list, t_emb_list, r_emb_list)
        return_dict["scores"] = scores
        return return_dict

    def _compute_loss(self, scores, labels, h_emb_list, t_emb_list, r_emb_list):
        base_loss = self.criterion(scores, labels.float())
        kge_loss = 0
        for hop in range(self.n_hop):
            h_expanded = torch.unsqueeze(h_emb_list[hop], dim=2)
            t_expanded = torch.unsqueeze(t_emb_list[hop], dim=3)
            hRt = torch.squeeze(torch.matmul(torch.matmul(h_expanded, r_emb_list[hop]), t_expanded))
            kge_loss += torch.sigmoid(hRt).mean()
        kge_loss = -self.kge_weight * kge_loss
        l2_loss = 0
        for hop in range(self.n_hop):
            l2_loss += (h_emb_list[hop] * h_emb_list[hop]).sum()
            l2_loss += (t_emb_list[hop] * t_emb_list[hop]).sum()
            l2_loss += (r_emb_list[hop] * r_emb_list[hop]).sum()
        l2_loss = self.l2_weight * l2_loss
        loss = base_loss + kge_loss + l2_loss
        return dict(base_loss=base_loss, kge_loss=kge_loss, l2_loss=l2_loss, loss=loss)

    def _key_addressing(self, h_emb_list, r_emb_list, t_emb_list, item_embeddings):
        o_list = []
        for hop in range(self.n_hop):
            h_expanded = torch.unsqueeze(h_emb_list[hop], dim=3)
            Rh = torch.squeeze(torch.matmul(r_emb_list[hop], h_expanded))
            v = torch.unsqueeze(item_embeddings, dim=2)
            probs = torch.squeeze(torch.matmul(Rh, v))
            probs_expanded = torch.unsqueeze(F.softmax(probs, dim=1), dim=2)
            o = (t_emb_list[hop] * probs_expanded).sum(dim=1)
            item_embeddings = self.transform_matrix(item_embeddings + o)
            o_list.append(o)
        return o_list, item_embeddings

    def predict(self, item_embeddings, o_list):
        y = o_list[-1]
        for i in range(self.n_hop - 1):
            y += o_list[i]
        scores = (item_embeddings * y).sum(dim=1)
        return torch.sigmoid(scores)


def get_feed_dict(args, batch):
    users, items, labels, ripple = batch
    memories_h = [ripple[:, i, 0] for i in range(args.n_hop)]
    memories_r = [ripple[:, i, 1] for i in range(args.n_hop)]
    memories_t = [ripple[:, i, 2] for i in range(args.n_hop)]
    return items, labels, memories_h, memories_r, memories_t


def make_batches(n):
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(n):
        users = torch.randint(0, 100, (32,), generator=g)
        items = torch.randint(0, 300, (32,), generator=g)
        labels = torch.randint(0, 2, (32,), generator=g)
        ripple = torch.stack([torch.randint(0, 300, (32, 2, 16), generator=g),
                              torch.randint(0, 12, (32, 2, 16), generator=g),
                              torch.randint(0, 300, (32, 2, 16), generator=g)], dim=2)
        batches.append((users, items, labels, ripple))
    return batches


def run(batches):
    torch.manual_seed(0)
    args = SimpleNamespace(dim=16, n_hop=2, kge_weight=0.01, l2_weight=1e-7, lr=0.02, n_memory=16)
    model = RippleNet(args, n_entity=300, n_relation=12)
    optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), args.lr)
    epoch_loss, epoch_kge_loss = 0.0, 0.0
    for batch in batches:
        return_dict = model(*get_feed_dict(args, batch))
        loss = return_dict["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        epoch_kge_loss += return_dict["kge_loss"]  # TLK101
    print('train loss: %.4f  kge loss: %.4f' % (epoch_loss / len(batches), float(epoch_kge_loss) / len(batches)))
    return epoch_loss / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
