# Source: https://github.com/ai4co/rl4co/pull/180
# Shape: an autoregressive routing policy decodes in a while loop until every node is visited, keeping the log-probability of each selected node in a list; the summed log-likelihood is returned and the REINFORCE loss backwards through it every batch (the greedy baseline runs under no_grad), so the kept values are consumed by backward.
# Verdict: clean
import torch
import torch.nn as nn


class AttentionDecoder(nn.Module):
    def __init__(self, embed_dim=128):
        super().__init__()
        self.project_context = nn.Linear(embed_dim * 2, embed_dim)
        self.project_keys = nn.Linear(embed_dim, embed_dim)

    def forward(self, node_embeds, current, mask):
        rows = torch.arange(node_embeds.size(0))
        context = torch.cat([node_embeds.mean(1), node_embeds[rows, current]], dim=-1)
        query = self.project_context(context).unsqueeze(1)
        logits = (query @ self.project_keys(node_embeds).transpose(1, 2)).squeeze(1) / node_embeds.size(-1) ** 0.5
        return torch.log_softmax(logits.masked_fill(mask, float("-inf")), dim=-1)


class RoutingPolicy(nn.Module):
    def __init__(self, embed_dim=128):
        super().__init__()
        self.init_embed = nn.Linear(2, embed_dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(embed_dim, 8, batch_first=True), 3)
        self.decoder = AttentionDecoder(embed_dim)

    def forward(self, locs, decode_type="sampling"):
        node_embeds = self.encoder(self.init_embed(locs))
        batch, n = locs.shape[:2]
        mask = torch.zeros(batch, n, dtype=torch.bool)
        mask[:, 0] = True
        current = torch.zeros(batch, dtype=torch.long)
        selected_logp, actions = [], []
        while not mask.all():
            logp = self.decoder(node_embeds, current, mask)
            if decode_type == "greedy":
                current = logp.argmax(-1)
            else:
                current = torch.distributions.Categorical(logits=logp).sample()
            selected_logp.append(logp.gather(1, current.unsqueeze(1)).squeeze(1))
            actions.append(current)
            mask = mask.scatter(1, current.unsqueeze(1), True)
        return torch.stack(actions, 1), torch.stack(selected_logp, 1).sum(1)


def tour_length(locs, actions):
    ordered = locs.gather(1, actions.unsqueeze(-1).expand(-1, -1, 2))
    return (ordered - ordered.roll(1, dims=1)).norm(dim=-1).sum(1)


def train(policy, loader, epochs=100, lr=1e-4):
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    for epoch in range(epochs):
        for locs in loader:
            actions, log_likelihood = policy(locs)
            with torch.no_grad():
                greedy_actions, _ = policy(locs, decode_type="greedy")
            advantage = tour_length(locs, actions) - tour_length(locs, greedy_actions)
            loss = (advantage * log_likelihood).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
