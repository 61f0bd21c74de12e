"""PPO with a state-independent Gaussian policy: rollouts into a buffer, clipped updates."""
import torch

from buffer import RolloutBuffer
from network import StateFunction, StateIndependentPolicy
from utils import ScalarLogger, calculate_gae, optimize


class PPO:
    def __init__(
        self,
        state_shape,
        action_shape,
        gamma=0.995,
        rollout_length=64,
        lr_actor=3e-4,
        lr_critic=3e-4,
        epoch_ppo=2,
        clip_eps=0.2,
        lambd=0.97,
        coef_ent=0.0,
        max_grad_norm=10.0,
    ):
        self.learning_steps = 0
        self.gamma = gamma
        self.buffer = RolloutBuffer(rollout_length, state_shape, action_shape)
        self.actor = StateIndependentPolicy(state_shape, action_shape)
        self.critic = StateFunction(state_shape)
        self.optim_actor = torch.optim.Adam(self.actor.parameters(), lr=lr_actor)
        self.optim_critic = torch.optim.Adam(self.critic.parameters(), lr=lr_critic)
        self.logger = ScalarLogger()
        self.learning_steps_ppo = 0
        self.rollout_length = rollout_length
        self.epoch_ppo = epoch_ppo
        self.clip_eps = clip_eps
        self.lambd = lambd
        self.coef_ent = coef_ent
        self.max_grad_norm = max_grad_norm

    def explore(self, state):
        state = torch.as_tensor(state, dtype=torch.float).unsqueeze(0)
        with torch.no_grad():
            action, log_pi = self.actor.sample(state)
        return action[0], log_pi.item()

    def exploit(self, state):
        state = torch.as_tensor(state, dtype=torch.float).unsqueeze(0)
        with torch.no_grad():
            action = self.actor(state)
        return action[0]

    def is_update(self, step):
        return step % self.rollout_length == 0

    def step(self, env, state, t, step):
        t += 1
        action, log_pi = self.explore(state)
        next_state, reward, done = env.step(action)
        mask = False if t == env.max_episode_steps else done
        self.buffer.append(state, action, reward, mask, log_pi, next_state)
        if done:
            t = 0
            next_state = env.reset()
        return next_state, t

    def update(self):
        self.learning_steps += 1
        states, actions, rewards, dones, log_pis, next_states = self.buffer.get()
        self.update_ppo(states, actions, rewards, dones, log_pis, next_states)

    def update_ppo(self, states, actions, rewards, dones, log_pis, next_states):
        with torch.no_grad():
            values = self.critic(states)
            next_values = self.critic(next_states)
        targets, gaes = calculate_gae(values, rewards, dones, next_values, self.gamma, self.lambd)
        for _ in range(self.epoch_ppo):
            self.learning_steps_ppo += 1
            self.update_critic(states, targets)
            self.update_actor(states, actions, log_pis, gaes)

    def update_critic(self, states, targets):
        loss_critic = (self.critic(states) - targets).pow_(2).mean()
        optimize(self.optim_critic, loss_critic, max_grad_norm=self.max_grad_norm, parameters=self.critic.parameters())
        if self.learning_steps_ppo % self.epoch_ppo == 0:
            self.logger.add_scalar("loss/critic", loss_critic.item(), self.learning_steps)

    def update_actor(self, states, actions, log_pis_old, gaes):
        log_pis = self.actor.evaluate_log_pi(states, actions)
        entropy = -log_pis.mean()
        ratios = (log_pis - log_pis_old).exp_()
        loss_actor1 = -ratios * gaes
        loss_actor2 = -torch.clamp(ratios, 1.0 - self.clip_eps, 1.0 + self.clip_eps) * gaes
        loss_actor = torch.max(loss_actor1, loss_actor2).mean() - self.coef_ent * entropy
        optimize(self.optim_actor, loss_actor, max_grad_norm=self.max_grad_norm, parameters=self.actor.parameters())
        if self.learning_steps_ppo % self.epoch_ppo == 0:
            self.logger.add_scalar("loss/actor", loss_actor.item(), self.learning_steps)
            self.logger.add_scalar("stats/entropy", entropy.item(), self.learning_steps)
