# Source: https://github.com/yulinzhouZYL/MTIL/issues/1
# Shape: a manually optimized LightningModule trains a recurrent imitation policy chunk by chunk and keeps the per-layer (conv, ssm) states on self between training_step calls; right after each forward it rebuilds self.hiddens with a list comprehension that detaches every state that is not None, so the carried states hold no graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L


class RecurrentLayer(nn.Module):
    def __init__(self, dim, kernel=4):
        super().__init__()
        self.kernel = kernel
        self.in_proj = nn.Linear(dim, 2 * dim)
        self.conv = nn.Conv1d(dim, dim, kernel, groups=dim)
        self.decay = nn.Parameter(torch.full((dim,), -1.0))
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x, state):
        conv_state, ssm_state = state if state is not None else (None, None)
        u, gate = self.in_proj(x).chunk(2, dim=-1)
        window = u.unsqueeze(-1) if conv_state is None else torch.cat([conv_state, u.unsqueeze(-1)], dim=-1)
        window = F.pad(window, (self.kernel - window.size(-1), 0)) if window.size(-1) < self.kernel else window
        conv_state = window[..., 1:]
        u = self.conv(window).squeeze(-1)
        decay = torch.sigmoid(self.decay)
        ssm_state = u if ssm_state is None else decay * ssm_state + (1 - decay) * u
        return x + self.out_proj(ssm_state * torch.sigmoid(gate)), (conv_state, ssm_state)


class RecurrentPolicy(nn.Module):
    def __init__(self, lowdim, rgb_dim, dim, action_dim, num_layers=4):
        super().__init__()
        self.encoder = nn.Linear(lowdim + rgb_dim, dim)
        self.layers = nn.ModuleList([RecurrentLayer(dim) for _ in range(num_layers)])
        self.head = nn.Linear(dim, action_dim)

    def step(self, lowdim, rgb_features, hiddens):
        x = self.encoder(torch.cat([lowdim, rgb_features], dim=-1))
        hiddens = hiddens if hiddens is not None else [None] * len(self.layers)
        new_hiddens = []
        for layer, state in zip(self.layers, hiddens):
            x, state = layer(x, state)
            new_hiddens.append(state)
        return self.head(x), new_hiddens


class ImitationModule(L.LightningModule):
    def __init__(self, policy: RecurrentPolicy, lr=1e-4):
        super().__init__()
        self.policy = policy
        self.lr = lr
        self.automatic_optimization = False
        self.hiddens = None

    def configure_optimizers(self):
        return torch.optim.AdamW(self.policy.parameters(), lr=self.lr)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        if batch["episode_start"]:
            self.hiddens = None
        pred_action, self.hiddens = self.policy.step(batch["lowdim"], batch["rgb"], self.hiddens)
        self.hiddens = [
            ((c.detach() if c is not None else None), (s.detach() if s is not None else None))
            for (c, s) in self.hiddens
        ]
        loss = F.mse_loss(pred_action, batch["actions"])
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        self.log("train/loss", loss, prog_bar=True)
        return loss
