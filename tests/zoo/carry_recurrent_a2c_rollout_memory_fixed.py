# Source: https://github.com/lcswillems/torch-ac/blob/master/torch_ac/algos/base.py
# Shape: the recurrent memory is still carried across steps and across updates (truncated BPTT style), but it is detached when carried, so each rollout step's GRU graph dies as soon as the step's locals are dropped; the update recomputes from the stored detached memories.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ParallelCorridor:
    """num_procs copies of a partially observable corridor (stand-in for ParallelEnv)."""

    def __init__(self, num_procs, length=12, obs_dim=5, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.num_procs = num_procs
        self.length = length
        self.obs_dim = obs_dim
        self.cue = torch.randint(0, 2, (num_procs,), generator=g)
        self.emb = torch.randn(length + 1, obs_dim, generator=g) * 0.5

    def reset(self):
        self.pos = torch.zeros(self.num_procs, dtype=torch.long)
        return self.obs()

    def obs(self):
        o = self.emb[self.pos].clone()
        o[:, 0] = torch.where(self.pos == 0, self.cue.float() * 2 - 1, torch.zeros(self.num_procs))
        return o

    def step(self, action):
        self.pos = (self.pos + (action == 1).long()).clamp(max=self.length)
        at_end = self.pos == self.length
        # the cue shown at the start decides how much reaching the end is worth
        reward = torch.where(at_end, 0.5 + 0.5 * self.cue.float(), torch.full((self.num_procs,), -0.01))
        done = at_end
        self.pos = torch.where(done, torch.zeros_like(self.pos), self.pos)
        return self.obs(), reward, done.float()


class RecurrentACModel(nn.Module):
    recurrent = True

    def __init__(self, obs_dim, n_actions, memory_size=24):
        super().__init__()
        self.memory_size = memory_size
        self.image_conv = nn.Sequential(nn.Linear(obs_dim, 24), nn.ReLU())
        self.memory_rnn = nn.GRUCell(24, memory_size)
        self.actor = nn.Sequential(nn.Linear(memory_size, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.critic = nn.Sequential(nn.Linear(memory_size, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, obs, memory):
        x = self.image_conv(obs)
        memory = self.memory_rnn(x, memory)
        logits = self.actor(memory)
        value = self.critic(memory).squeeze(1)
        return logits, value, memory


class RecurrentA2C:
    def __init__(self, env, acmodel, num_frames_per_proc=8, discount=0.99, gae_lambda=0.95,
                 entropy_coef=0.01, value_loss_coef=0.5, max_grad_norm=0.5, recurrence=4, lr=7e-4):
        self.env = env
        self.acmodel = acmodel
        self.num_frames_per_proc = num_frames_per_proc
        self.discount = discount
        self.gae_lambda = gae_lambda
        self.entropy_coef = entropy_coef
        self.value_loss_coef = value_loss_coef
        self.max_grad_norm = max_grad_norm
        self.recurrence = recurrence
        self.num_procs = env.num_procs
        self.optimizer = torch.optim.RMSprop(acmodel.parameters(), lr, alpha=0.99, eps=1e-8)

        self.obs = self.env.reset()
        self.memory = torch.zeros(self.num_procs, acmodel.memory_size)
        self.mask = torch.ones(self.num_procs)

    def collect_experiences(self, uniforms):
        obss, memories, masks, actions, values, rewards, log_probs = [], [], [], [], [], [], []
        for i in range(self.num_frames_per_proc):
            logits, value, memory = self.acmodel(self.obs, self.memory * self.mask.unsqueeze(1))
            probs = F.softmax(logits, dim=1).detach()
            action = (probs.cumsum(1) < uniforms[i].unsqueeze(1)).sum(1).clamp(max=probs.size(1) - 1)
            obs, reward, done = self.env.step(action)

            obss.append(self.obs)
            memories.append(self.memory.detach())
            self.memory = memory.detach()
            masks.append(self.mask)
            self.mask = 1 - done
            actions.append(action)
            values.append(value.detach())
            rewards.append(reward)
            log_probs.append(F.log_softmax(logits, dim=1).gather(1, action.unsqueeze(1)).squeeze(1).detach())
            self.obs = obs

        with torch.no_grad():
            _, next_value, _ = self.acmodel(self.obs, self.memory * self.mask.unsqueeze(1))

        advantages = [None] * self.num_frames_per_proc
        next_advantage = torch.zeros(self.num_procs)
        for i in reversed(range(self.num_frames_per_proc)):
            next_mask = masks[i + 1] if i < self.num_frames_per_proc - 1 else self.mask
            next_v = values[i + 1] if i < self.num_frames_per_proc - 1 else next_value
            delta = rewards[i] + self.discount * next_v * next_mask - values[i]
            next_advantage = delta + self.discount * self.gae_lambda * next_advantage * next_mask
            advantages[i] = next_advantage

        exps = {
            "obs": torch.stack(obss), "memory": torch.stack(memories), "mask": torch.stack(masks),
            "action": torch.stack(actions), "value": torch.stack(values),
            "advantage": torch.stack(advantages), "log_prob": torch.stack(log_probs),
        }
        exps["returnn"] = exps["value"] + exps["advantage"]
        return exps

    def update_parameters(self, exps):
        update_loss = 0
        for start in range(0, self.num_frames_per_proc, self.recurrence):
            memory = exps["memory"][start]
            for t in range(start, start + self.recurrence):
                logits, value, memory = self.acmodel(exps["obs"][t], memory * exps["mask"][t].unsqueeze(1))
                log_prob = F.log_softmax(logits, dim=1)
                entropy = -(log_prob.exp() * log_prob).sum(1).mean()
                policy_loss = -(log_prob.gather(1, exps["action"][t].unsqueeze(1)).squeeze(1)
                                * exps["advantage"][t]).mean()
                value_loss = (value - exps["returnn"][t]).pow(2).mean()
                update_loss = update_loss + policy_loss - self.entropy_coef * entropy \
                    + self.value_loss_coef * value_loss
        update_loss = update_loss / self.num_frames_per_proc
        self.optimizer.zero_grad()
        update_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.acmodel.parameters(), self.max_grad_norm)
        self.optimizer.step()
        return update_loss.item()


NUM_PROCS = 4
FRAMES = 8


def make_batches(n):
    g = torch.Generator().manual_seed(17)
    return [torch.rand(FRAMES, NUM_PROCS, generator=g) for _ in range(n)]


def run(batches, probe=None):
    torch.manual_seed(0)
    env = ParallelCorridor(NUM_PROCS)
    acmodel = RecurrentACModel(env.obs_dim, 3)
    algo = RecurrentA2C(env, acmodel, num_frames_per_proc=FRAMES)
    losses = []
    for uniforms in batches:
        exps = algo.collect_experiences(uniforms)
        losses.append(algo.update_parameters(exps))
        if probe is not None:
            probe()
    return {"loss": losses[-1]}


if __name__ == "__main__":
    print(run(make_batches(5)))
