"""A matrix-factorisation recommender trained with BPR, plus an alignment term that pulls each
batch's users towards a running centroid of the user embeddings."""
import torch
import torch.nn as nn

from loss import BPRLoss, EmbLoss


class BPR(nn.Module):
    def __init__(self, n_users, n_items, embedding_size=8, reg_weight=1e-4, align_weight=0.1, centroid_momentum=0.9):
        super().__init__()
        self.user_embedding = nn.Embedding(n_users, embedding_size)
        self.item_embedding = nn.Embedding(n_items, embedding_size)
        self.loss = BPRLoss()
        self.reg_loss = EmbLoss()
        self.reg_weight = reg_weight
        self.align_weight = align_weight
        self.centroid_momentum = centroid_momentum
        self.user_centroid = torch.zeros(embedding_size)
        self.restore_user_e = None
        self.restore_item_e = None

    def forward(self, user, item):
        return self.user_embedding(user), self.item_embedding(item)

    def calculate_loss(self, interaction):
        if self.restore_user_e is not None:
            self.restore_user_e, self.restore_item_e = None, None
        user, pos_item, neg_item = interaction["user_id"], interaction["item_id"], interaction["neg_item_id"]
        user_e, pos_e = self.forward(user, pos_item)
        neg_e = self.item_embedding(neg_item)
        pos_score = (user_e * pos_e).sum(-1)
        neg_score = (user_e * neg_e).sum(-1)
        mf_loss = self.loss(pos_score, neg_score)
        reg_loss = self.reg_loss(user_e, pos_e, neg_e)
        self.user_centroid = self.centroid_momentum * self.user_centroid + (1 - self.centroid_momentum) * user_e.mean(0)
        align_loss = (user_e - self.user_centroid).pow(2).sum(-1).mean()
        return mf_loss, self.reg_weight * reg_loss.squeeze() + self.align_weight * align_loss

    def predict(self, interaction):
        user_e, item_e = self.forward(interaction["user_id"], interaction["item_id"])
        return (user_e * item_e).sum(-1)

    def full_sort_predict(self, interaction):
        if self.restore_user_e is None:
            self.restore_user_e, self.restore_item_e = self.user_embedding.weight, self.item_embedding.weight
        return self.restore_user_e[interaction["user_id"]] @ self.restore_item_e.t()
