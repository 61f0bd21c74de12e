# Source: https://github.com/p-christ/Deep-Reinforcement-Learning-Algorithms-with-PyTorch/blob/1d597139b0ddf0110569325751f26a7c060250d9/agents/actor_critic_agents/SAC.py
# Shape: the same program as held_sac_agent.py with its leak fixed; the look-alikes it keeps must stay silent.
# Verdict: clean
import random
from collections import defaultdict, deque, namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

LOG_SIG_MAX = 2
LOG_SIG_MIN = -20
EPSILON = 1e-6

HYPERPARAMETERS = {
    "Actor": {"learning_rate": 3e-4, "linear_hidden_units": [32, 32], "gradient_clipping_norm": 5},
    "Critic": {"learning_rate": 3e-4, "linear_hidden_units": [32, 32], "gradient_clipping_norm": 5,
               "tau": 0.005, "buffer_size": 10000},
    "batch_size": 32,
    "discount_rate": 0.99,
    "min_steps_before_learning": 40,
    "update_every_n_steps": 1,
    "learning_updates_per_learning_session": 1,
    "automatically_tune_entropy_hyperparameter": True,
    "entropy_term_weight": 0.2,
}


class PointMassEnv:
    """1-D point mass that must be pushed to the origin; continuous action in [-1, 1]."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self._max_episode_steps = 25
        self.state_size, self.action_size = 2, 1

    def reset(self):
        self.t = 0
        self.pos, self.vel = self.rng.uniform(-1, 1), 0.0
        return [self.pos, self.vel]

    def step(self, action):
        a = max(-1.0, min(1.0, float(action[0])))
        self.vel = 0.9 * self.vel + 0.1 * a
        self.pos = self.pos + self.vel
        self.t += 1
        reward = -(self.pos ** 2) - 0.01 * a * a
        done = self.t >= self._max_episode_steps
        return [self.pos, self.vel], reward, done, {}


def make_batches(n, seed=0):
    """Transitions are produced by interacting with the toy environment."""
    return PointMassEnv(seed)


class Replay_Buffer(object):
    def __init__(self, buffer_size, batch_size, seed):
        self.memory = deque(maxlen=buffer_size)
        self.batch_size = batch_size
        self.experience = namedtuple("Experience", field_names=["state", "action", "reward", "next_state", "done"])
        self.rng = random.Random(seed)

    def add_experience(self, states, actions, rewards, next_states, dones):
        self.memory.append(self.experience(states, actions, rewards, next_states, dones))

    def sample(self):
        experiences = self.rng.sample(self.memory, k=self.batch_size)
        states = torch.tensor([e.state for e in experiences], dtype=torch.float32)
        actions = torch.tensor([e.action for e in experiences], dtype=torch.float32)
        rewards = torch.tensor([e.reward for e in experiences], dtype=torch.float32).unsqueeze(1)
        next_states = torch.tensor([e.next_state for e in experiences], dtype=torch.float32)
        dones = torch.tensor([float(e.done) for e in experiences], dtype=torch.float32).unsqueeze(1)
        return states, actions, rewards, next_states, dones

    def __len__(self):
        return len(self.memory)


class TrainingStats:
    """Tiny wandb-like logger: a history dict of lists."""

    def __init__(self):
        self.history = defaultdict(list)

    def log_scalar(self, key, value):
        self.history[key].append(value)

    def log_dict(self, d):
        for k, v in d.items():
            self.log_scalar(k, v)

    def mean(self, key, last=10):
        vals = self.history[key][-last:]
        return sum(float(v) for v in vals) / max(len(vals), 1)


def create_NN(input_dim, output_dim, hidden):
    layers, d = [], input_dim
    for h in hidden:
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, output_dim))
    return nn.Sequential(*layers)


class SAC:
    agent_name = "SAC"

    def __init__(self, environment, hyperparameters, seed=0):
        torch.manual_seed(seed)
        self.environment = environment
        self.hyperparameters = hyperparameters
        self.state_size, self.action_size = environment.state_size, environment.action_size
        h = hyperparameters
        self.critic_local = create_NN(self.state_size + self.action_size, 1, h["Critic"]["linear_hidden_units"])
        self.critic_local_2 = create_NN(self.state_size + self.action_size, 1, h["Critic"]["linear_hidden_units"])
        self.critic_optimizer = torch.optim.Adam(self.critic_local.parameters(), lr=h["Critic"]["learning_rate"])
        self.critic_optimizer_2 = torch.optim.Adam(self.critic_local_2.parameters(), lr=h["Critic"]["learning_rate"])
        self.critic_target = create_NN(self.state_size + self.action_size, 1, h["Critic"]["linear_hidden_units"])
        self.critic_target_2 = create_NN(self.state_size + self.action_size, 1, h["Critic"]["linear_hidden_units"])
        self.copy_model_over(self.critic_local, self.critic_target)
        self.copy_model_over(self.critic_local_2, self.critic_target_2)
        self.memory = Replay_Buffer(h["Critic"]["buffer_size"], h["batch_size"], seed)
        self.actor_local = create_NN(self.state_size, self.action_size * 2, h["Actor"]["linear_hidden_units"])
        self.actor_optimizer = torch.optim.Adam(self.actor_local.parameters(), lr=h["Actor"]["learning_rate"])
        self.automatic_entropy_tuning = h["automatically_tune_entropy_hyperparameter"]
        if self.automatic_entropy_tuning:
            self.target_entropy = -float(self.action_size)
            self.log_alpha = torch.zeros(1, requires_grad=True)
            self.alpha = self.log_alpha.exp()
            self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=h["Actor"]["learning_rate"])
        else:
            self.alpha = h["entropy_term_weight"]
        self.training_stats = TrainingStats()
        self.global_step_number = 0
        self.episode_number = 0

    # ------------------------------------------------------------------ acting
    def reset_game(self):
        self.state = self.environment.reset()
        self.done = False
        self.total_episode_score_so_far = 0.0

    def pick_action(self):
        if self.global_step_number < self.hyperparameters["min_steps_before_learning"]:
            return [random.Random(self.global_step_number).uniform(-1, 1)]
        state = torch.tensor(self.state, dtype=torch.float32).unsqueeze(0)
        with torch.no_grad():
            action, _, _ = self.produce_action_and_action_info(state)
        return action[0].tolist()

    def conduct_action(self, action):
        self.next_state, self.reward, self.done, _ = self.environment.step(action)
        self.total_episode_score_so_far += self.reward

    def time_for_critic_and_actor_to_learn(self):
        return self.global_step_number > self.hyperparameters["min_steps_before_learning"] and \
            len(self.memory) > self.hyperparameters["batch_size"] and \
            self.global_step_number % self.hyperparameters["update_every_n_steps"] == 0

    def step(self):
        """One environment step (and a learning update when it is time)."""
        if getattr(self, "state", None) is None or self.done:
            self.reset_game()
            self.episode_number += 1
        self.action = self.pick_action()
        self.conduct_action(self.action)
        if self.time_for_critic_and_actor_to_learn():
            for _ in range(self.hyperparameters["learning_updates_per_learning_session"]):
                self.learn()
        self.memory.add_experience(self.state, self.action, self.reward, self.next_state, self.done)
        self.state = self.next_state
        self.global_step_number += 1

    # ------------------------------------------------------------------ learning
    def produce_action_and_action_info(self, state):
        actor_output = self.actor_local(state)
        mean, log_std = actor_output[:, :self.action_size], actor_output[:, self.action_size:]
        log_std = torch.clamp(log_std, LOG_SIG_MIN, LOG_SIG_MAX)
        std = log_std.exp()
        normal = Normal(mean, std)
        x_t = normal.rsample()
        action = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t)
        log_prob -= torch.log(1 - action.pow(2) + EPSILON)
        log_prob = log_prob.sum(1, keepdim=True)
        return action, log_prob, torch.tanh(mean)

    def calculate_critic_losses(self, state_batch, action_batch, reward_batch, next_state_batch, mask_batch):
        with torch.no_grad():
            next_state_action, next_state_log_pi, _ = self.produce_action_and_action_info(next_state_batch)
            qf1_next_target = self.critic_target(torch.cat((next_state_batch, next_state_action), 1))
            qf2_next_target = self.critic_target_2(torch.cat((next_state_batch, next_state_action), 1))
            min_qf_next_target = torch.min(qf1_next_target, qf2_next_target) - self.alpha * next_state_log_pi
            next_q_value = reward_batch + (1.0 - mask_batch) * self.hyperparameters["discount_rate"] * min_qf_next_target
        qf1 = self.critic_local(torch.cat((state_batch, action_batch), 1))
        qf2 = self.critic_local_2(torch.cat((state_batch, action_batch), 1))
        return F.mse_loss(qf1, next_q_value), F.mse_loss(qf2, next_q_value)

    def calculate_actor_loss(self, state_batch):
        action, log_pi, _ = self.produce_action_and_action_info(state_batch)
        qf1_pi = self.critic_local(torch.cat((state_batch, action), 1))
        qf2_pi = self.critic_local_2(torch.cat((state_batch, action), 1))
        min_qf_pi = torch.min(qf1_pi, qf2_pi)
        policy_loss = ((self.alpha * log_pi) - min_qf_pi).mean()
        return policy_loss, log_pi

    def calculate_entropy_tuning_loss(self, log_pi):
        return -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()

    def learn(self):
        """Runs a learning iteration for both critics, the actor and (if specified) the temperature"""
        state_batch, action_batch, reward_batch, next_state_batch, mask_batch = self.memory.sample()
        qf1_loss, qf2_loss = self.calculate_critic_losses(state_batch, action_batch, reward_batch, next_state_batch, mask_batch)
        self.update_critic_parameters(qf1_loss, qf2_loss)
        # the actor loss is built after the critic step so that the critic weights saved in its graph are current
        policy_loss, log_pi = self.calculate_actor_loss(state_batch)
        alpha_loss = self.calculate_entropy_tuning_loss(log_pi) if self.automatic_entropy_tuning else None
        self.update_actor_parameters(policy_loss, alpha_loss)
        stats = {"critic_loss_1": qf1_loss, "critic_loss_2": qf2_loss, "policy_loss": policy_loss, "alpha": self.alpha}
        self.training_stats.log_dict({k: float(v) for k, v in stats.items()})

    def update_critic_parameters(self, critic_loss_1, critic_loss_2):
        h = self.hyperparameters
        self.take_optimisation_step(self.critic_optimizer, self.critic_local, critic_loss_1, h["Critic"]["gradient_clipping_norm"])
        self.take_optimisation_step(self.critic_optimizer_2, self.critic_local_2, critic_loss_2, h["Critic"]["gradient_clipping_norm"])
        self.soft_update_of_target_network(self.critic_local, self.critic_target, h["Critic"]["tau"])
        self.soft_update_of_target_network(self.critic_local_2, self.critic_target_2, h["Critic"]["tau"])

    def update_actor_parameters(self, actor_loss, alpha_loss):
        h = self.hyperparameters
        # the temperature loss below only uses log_pi.detach(), so the actor graph can be freed here
        self.take_optimisation_step(self.actor_optimizer, self.actor_local, actor_loss, h["Actor"]["gradient_clipping_norm"])
        if alpha_loss is not None:
            self.take_optimisation_step(self.alpha_optim, None, alpha_loss, None)
            self.alpha = self.log_alpha.exp()

    def take_optimisation_step(self, optimizer, network, loss, clipping_norm=None, retain_graph=False):
        if not isinstance(network, list):
            network = [network]
        optimizer.zero_grad()
        loss.backward(retain_graph=retain_graph)
        if clipping_norm is not None:
            for net in network:
                torch.nn.utils.clip_grad_norm_(net.parameters(), clipping_norm)
        optimizer.step()

    @staticmethod
    def soft_update_of_target_network(local_model, target_model, tau):
        for target_param, local_param in zip(target_model.parameters(), local_model.parameters()):
            target_param.data.copy_(tau * local_param.data + (1.0 - tau) * target_param.data)

    @staticmethod
    def copy_model_over(from_model, to_model):
        for to_p, from_p in zip(to_model.parameters(), from_model.parameters()):
            to_p.data.copy_(from_p.data.clone())


def run(steps):
    """`steps` learning updates (after a fixed warm-up of random exploration)."""
    random.seed(0)
    env = make_batches(steps)
    agent = SAC(env, HYPERPARAMETERS, seed=0)
    total = HYPERPARAMETERS["min_steps_before_learning"] + 1 + steps
    while agent.global_step_number < total:
        agent.step()
    return agent


if __name__ == "__main__":
    run(10)
