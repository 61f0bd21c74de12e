# Source: https://github.com/jcwleo/curiosity-driven-exploration-pytorch/blob/master/agents.py
# Shape: the intrinsic reward is still an attached ICM output, but only its .item() value is added to self.intrinsic_return, so each rollout-time ICM graph dies with the local tensor and the running return is a plain float.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class DriftEnv:
    """Continuing control task standing in for the Atari envs of the original repo."""

    def __init__(self, obs_dim=8, n_actions=4, max_steps=5000, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.obs_dim = obs_dim
        self.n_actions = n_actions
        self.max_steps = max_steps
        self.moves = torch.randn(n_actions, obs_dim, generator=g) * 0.5
        self.goal = torch.randn(obs_dim, generator=g).tanh()

    def reset(self):
        self.t = 0
        self.state = torch.zeros(self.obs_dim)
        return self.state.clone()

    def step(self, action, noise):
        self.t += 1
        self.state = torch.tanh(self.state + self.moves[action] + 0.1 * noise)
        reward = float(-(self.state - self.goal).pow(2).mean())
        done = self.t >= self.max_steps
        return self.state.clone(), reward, done


class ActorCriticNetwork(nn.Module):
    def __init__(self, input_size, output_size, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(input_size, hidden), nn.ReLU())
        self.actor = nn.Linear(hidden, output_size)
        self.critic = nn.Linear(hidden, 1)

    def forward(self, state):
        x = self.body(state)
        return self.actor(x), self.critic(x)


class ICMModel(nn.Module):
    def __init__(self, input_size, output_size, feat=16):
        super().__init__()
        self.feature = nn.Sequential(nn.Linear(input_size, feat), nn.LeakyReLU())
        self.inverse_net = nn.Sequential(nn.Linear(feat * 2, feat), nn.ReLU(), nn.Linear(feat, output_size))
        self.forward_net = nn.Sequential(nn.Linear(feat + output_size, feat), nn.LeakyReLU(), nn.Linear(feat, feat))

    def forward(self, inputs):
        state, next_state, action = inputs
        encode_state = self.feature(state)
        encode_next_state = self.feature(next_state)
        pred_action = self.inverse_net(torch.cat((encode_state, encode_next_state), 1))
        pred_next_state_feature = self.forward_net(torch.cat((encode_state, action), 1))
        return encode_next_state, pred_next_state_feature, pred_action


class ICMAgent:
    def __init__(self, input_size, output_size, num_step, gamma=0.99, eta=0.01, learning_rate=1e-3, ent_coef=0.01):
        self.model = ActorCriticNetwork(input_size, output_size)
        self.icm = ICMModel(input_size, output_size)
        self.output_size = output_size
        self.num_step = num_step
        self.gamma = gamma
        self.eta = eta
        self.ent_coef = ent_coef
        self.optimizer = torch.optim.Adam(
            list(self.model.parameters()) + list(self.icm.parameters()), lr=learning_rate)
        self.intrinsic_return = 0.0

    def get_action(self, state, u):
        with torch.no_grad():
            policy, value = self.model(state.unsqueeze(0))
        action_prob = F.softmax(policy, dim=-1).squeeze(0)
        # same inverse-CDF trick as random_choice_prob_index in the original
        action = int((action_prob.cumsum(0) > u).nonzero()[0])
        return action, float(value)

    def compute_intrinsic_reward(self, state, next_state, action):
        action_onehot = F.one_hot(action, self.output_size).float()
        real_next_state_feature, pred_next_state_feature, _ = self.icm(
            [state, next_state, action_onehot])
        intrinsic_reward = self.eta * F.mse_loss(
            real_next_state_feature, pred_next_state_feature, reduction='none').mean(-1)
        self.intrinsic_return += intrinsic_reward.sum().item()
        return intrinsic_reward.detach()

    def train_model(self, s_batch, next_s_batch, target_batch, y_batch, adv_batch):
        action_onehot = F.one_hot(y_batch, self.output_size).float()
        real_next_state_feature, pred_next_state_feature, pred_action = self.icm(
            [s_batch, next_s_batch, action_onehot])
        inverse_loss = F.cross_entropy(pred_action, y_batch)
        forward_loss = F.mse_loss(pred_next_state_feature, real_next_state_feature.detach())

        policy, value = self.model(s_batch)
        log_prob = F.log_softmax(policy, dim=-1)
        action_log_prob = log_prob.gather(1, y_batch.unsqueeze(1)).squeeze(1)
        actor_loss = -(action_log_prob * adv_batch).mean()
        critic_loss = F.mse_loss(value.squeeze(1), target_batch)
        entropy = -(log_prob.exp() * log_prob).sum(-1).mean()

        self.optimizer.zero_grad()
        loss = (actor_loss + 0.5 * critic_loss - self.ent_coef * entropy) + forward_loss + inverse_loss
        loss.backward()
        self.optimizer.step()
        return loss.item()


def make_returns(rewards, values, next_value, gamma):
    returns = torch.zeros_like(rewards)
    running = next_value
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns, returns - values


NUM_STEP = 16
OBS_DIM = 8
N_ACTIONS = 4


def make_batches(n):
    g = torch.Generator().manual_seed(1234)
    return [{"u": torch.rand(NUM_STEP, generator=g),
             "noise": torch.randn(NUM_STEP, OBS_DIM, generator=g)} for _ in range(n)]


def run(batches, probe=None):
    torch.manual_seed(0)
    env = DriftEnv(OBS_DIM, N_ACTIONS)
    agent = ICMAgent(OBS_DIM, N_ACTIONS, NUM_STEP)
    state = env.reset()
    losses = []
    for batch in batches:
        states, next_states, actions, ext_rewards, values = [], [], [], [], []
        for t in range(NUM_STEP):
            action, value = agent.get_action(state, batch["u"][t])
            next_state, reward, done = env.step(action, batch["noise"][t])
            states.append(state)
            next_states.append(next_state)
            actions.append(action)
            ext_rewards.append(reward)
            values.append(value)
            state = env.reset() if done else next_state

        s_batch = torch.stack(states)
        next_s_batch = torch.stack(next_states)
        y_batch = torch.tensor(actions)
        intrinsic_reward = agent.compute_intrinsic_reward(s_batch, next_s_batch, y_batch)
        total_reward = torch.tensor(ext_rewards) + intrinsic_reward
        with torch.no_grad():
            _, next_value = agent.model(state.unsqueeze(0))
        target_batch, adv_batch = make_returns(total_reward, torch.tensor(values),
                                               float(next_value), agent.gamma)
        losses.append(agent.train_model(s_batch, next_s_batch, target_batch, y_batch, adv_batch))
        if probe is not None:
            probe()
    return {"loss": losses[-1], "intrinsic_return": float(agent.intrinsic_return)}


if __name__ == "__main__":
    print(run(make_batches(5)))
