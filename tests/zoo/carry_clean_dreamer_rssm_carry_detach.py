# Source: https://github.com/danijar/dreamerv2/issues/44
# Shape: the world model's RSSM posterior from the end of one training batch seeds the next batch (truncated BPTT), but WorldModel.train() stores it as state.detach() and each batch is backwarded once, so no graph is carried between batches.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import distributions as td

OBS_DIM = 16
ACT_DIM = 3
DETER = 32
STOCH = 16
HIDDEN = 32
SEQ_LEN = 8
BATCH = 8


class RSSM(nn.Module):
    def __init__(self):
        super().__init__()
        self.img_in = nn.Linear(STOCH + ACT_DIM, HIDDEN)
        self.cell = nn.GRUCell(HIDDEN, DETER)
        self.img_out = nn.Linear(DETER, 2 * STOCH)
        self.obs_out = nn.Linear(DETER + HIDDEN, 2 * STOCH)

    def initial(self, batch_size):
        return {"deter": torch.zeros(batch_size, DETER), "stoch": torch.zeros(batch_size, STOCH)}

    def _dist(self, stats):
        mean, std = stats.chunk(2, dim=-1)
        return td.Independent(td.Normal(mean, F.softplus(std) + 0.1), 1)

    def img_step(self, prev_state, prev_action):
        x = F.elu(self.img_in(torch.cat([prev_state["stoch"], prev_action], -1)))
        deter = self.cell(x, prev_state["deter"])
        prior_stats = self.img_out(deter)
        return {"deter": deter, "stoch": self._dist(prior_stats).rsample(), "stats": prior_stats}

    def obs_step(self, prev_state, prev_action, embed, is_first):
        mask = (1.0 - is_first).unsqueeze(-1)
        prev_state = {k: v * mask for k, v in prev_state.items() if k in ("deter", "stoch")}
        prior = self.img_step(prev_state, prev_action)
        post_stats = self.obs_out(torch.cat([prior["deter"], embed], -1))
        post = {"deter": prior["deter"], "stoch": self._dist(post_stats).rsample(), "stats": post_stats}
        return post, prior

    def observe(self, embed, action, is_first, state):
        posts, priors = [], []
        for t in range(embed.shape[1]):
            state, prior = self.obs_step(state, action[:, t], embed[:, t], is_first[:, t])
            posts.append(state)
            priors.append(prior)
        return posts, priors, state


class WorldModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(OBS_DIM, HIDDEN), nn.ELU())
        self.rssm = RSSM()
        self.decoder = nn.Sequential(nn.Linear(DETER + STOCH, HIDDEN), nn.ELU(), nn.Linear(HIDDEN, OBS_DIM))
        self.reward = nn.Linear(DETER + STOCH, 1)
        self.opt = torch.optim.Adam(self.parameters(), lr=3e-4)

    def loss(self, data, state):
        embed = self.encoder(data["obs"])
        posts, priors, last_state = self.rssm.observe(embed, data["action"], data["is_first"], state)
        feat = torch.stack([torch.cat([p["deter"], p["stoch"]], -1) for p in posts], 1)
        recon = F.mse_loss(self.decoder(feat), data["obs"])
        reward = F.mse_loss(self.reward(feat).squeeze(-1), data["reward"])
        kl = 0.0
        for post, prior in zip(posts, priors):
            kl = kl + td.kl_divergence(self.rssm._dist(post["stats"]),
                                       self.rssm._dist(prior["stats"].detach())).mean()
        model_loss = recon + reward + 0.1 * kl / len(posts)
        return model_loss, last_state, {"recon": recon.item(), "kl": float(kl) / len(posts)}

    def train_batch(self, data, state=None):
        if state is None:
            state = self.rssm.initial(data["obs"].shape[0])
        model_loss, post, metrics = self.loss(data, state)
        self.opt.zero_grad()
        model_loss.backward()
        nn.utils.clip_grad_norm_(self.parameters(), 100.0)
        self.opt.step()
        metrics["model_loss"] = model_loss.item()
        return {k: v.detach() for k, v in post.items() if k in ("deter", "stoch")}, metrics


class Agent:
    def __init__(self):
        self.wm = WorldModel()
        self._state = None
        self.metrics = {}

    def train(self, data):
        self._state, mets = self.wm.train_batch(data, self._state)
        for k, v in mets.items():
            self.metrics[k] = 0.99 * self.metrics.get(k, v) + 0.01 * v


def make_batches(n):
    torch.manual_seed(0)
    return [2024 + i for i in range(n)]


def _episode_chunk(seed):
    g = torch.Generator().manual_seed(seed)
    return {
        "obs": torch.randn(BATCH, SEQ_LEN, OBS_DIM, generator=g),
        "action": torch.randn(BATCH, SEQ_LEN, ACT_DIM, generator=g).tanh(),
        "reward": torch.randn(BATCH, SEQ_LEN, generator=g),
        "is_first": torch.zeros(BATCH, SEQ_LEN),
    }


def run(batches):
    torch.manual_seed(0)
    agent = Agent()
    for seed in batches:
        agent.train(_episode_chunk(seed))
    return agent
