"""Pairwise ranking loss and the embedding regulariser."""
import torch
import torch.nn as nn


class BPRLoss(nn.Module):
    def __init__(self, gamma=1e-10):
        super().__init__()
        self.gamma = gamma

    def forward(self, pos_score, neg_score):
        return -torch.log(self.gamma + torch.sigmoid(pos_score - neg_score)).mean()


class EmbLoss(nn.Module):
    def __init__(self, norm=2):
        super().__init__()
        self.norm = norm

    def forward(self, *embeddings):
        emb_loss = torch.zeros(1, device=embeddings[-1].device)
        for embedding in embeddings:
            emb_loss = emb_loss + torch.norm(embedding, p=self.norm).pow(2)
        return emb_loss / embeddings[-1].shape[0] / 2
