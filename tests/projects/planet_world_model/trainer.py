# The model-fitting, data-collection and test blocks of Kaixhin/PlaNet's main.py, moved into a
# WorldModelTrainer whose models, memory, planner and logger are built in main.py and handed
# to the constructor; a Dreamer-style actor (trained on imagined rollouts from detached
# posterior states) explores during collection, the CEM planner acts at test time.
import torch
from torch import nn

from models import bottle, world_model_loss


class WorldModelTrainer(object):
    def __init__(self, args, env, transition_model, observation_model, reward_model, encoder, actor, planner, memory, logger):
        self.args, self.env = args, env
        self.transition_model, self.observation_model, self.reward_model, self.encoder = transition_model, observation_model, reward_model, encoder
        self.actor, self.planner, self.memory, self.logger = actor, planner, memory, logger
        self.param_list = list(transition_model.parameters()) + list(observation_model.parameters()) + list(reward_model.parameters()) + list(encoder.parameters())
        self.model_optimiser = torch.optim.Adam(self.param_list, lr=args.learning_rate, eps=args.adam_epsilon)
        self.actor_optimiser = torch.optim.Adam(actor.parameters(), lr=args.learning_rate)
        self.free_nats = torch.full((1, ), args.free_nats)
        self.belief = self.posterior_state = self.action = None

    def _optimise_model(self, loss):
        self.model_optimiser.zero_grad()
        loss.backward(retain_graph=True)  # expect: TLK201
        nn.utils.clip_grad_norm_(self.param_list, self.args.grad_clip_norm, norm_type=2)
        self.model_optimiser.step()

    def train_step(self):
        args = self.args
        observations, actions, rewards, nonterminals = self.memory.sample(args.batch_size, args.chunk_size)
        init_belief, init_state = torch.zeros(args.batch_size, args.belief_size), torch.zeros(args.batch_size, args.state_size)
        beliefs, posterior_states, prior_means, prior_stds, posterior_means, posterior_stds = self.transition_model(init_state, actions[:-1], init_belief, bottle(self.encoder, (observations[1:], )))
        model_loss, (observation_loss, reward_loss, kl_loss) = world_model_loss(self.observation_model, self.reward_model, beliefs, posterior_states, (prior_means, prior_stds), (posterior_means, posterior_stds), observations[1:], rewards[:-1], self.free_nats)
        self._optimise_model(model_loss)
        # actor: imagine from the detached posterior states, maximise the predicted reward
        belief, state = beliefs[-1].detach(), posterior_states[-1].detach()
        imagined_return = 0
        for _ in range(args.planning_horizon):
            belief, state, _, _ = self.transition_model.observe_step(state, self.actor(belief, state), belief)
            imagined_return = imagined_return + self.reward_model(belief, state).mean()
        self.actor_optimiser.zero_grad()
        (-imagined_return).backward()
        self.actor_optimiser.step()
        self.logger.log('observation_loss', observation_loss.item())  # clean: .item() before the logger
        self.logger.log('kl_loss', kl_loss)  # expect: TLK102 (utils.py) MetricsLogger.log appends to self.metrics[name]
        return model_loss.item()

    def collect_episode(self):
        observation, total_reward = self.env.reset(), 0.0
        self.belief, self.posterior_state = torch.zeros(1, self.args.belief_size), torch.zeros(1, self.args.state_size)
        self.action = torch.zeros(1, self.env.action_size)
        for t in range(self.args.max_episode_length):
            self.belief, self.posterior_state, _, _, _, _ = self.transition_model.observe_step(self.posterior_state, self.action, self.belief, self.encoder(observation.unsqueeze(0)))  # expect: TLK103
            self.action = self.actor(self.belief, self.posterior_state)  # expect: TLK103
            self.action = self.action + self.args.action_noise * torch.randn_like(self.action)
            pred_reward = self.reward_model(self.belief, self.posterior_state)
            next_observation, reward, done = self.env.step(self.action[0].detach())
            self.memory.append(observation, self.action[0].detach(), reward, done, pred_reward)  # expect: TLK102 (memory.py) ExperienceReplay.append keeps pred_reward
            total_reward += reward
            observation = next_observation
            if done:
                break
        self.logger.log('train_rewards', total_reward)  # clean: a float
        return total_reward

    def evaluate(self):
        with torch.no_grad():
            observation, total_reward, frames = self.env.reset(), 0.0, []
            belief, posterior_state, action = torch.zeros(1, self.args.belief_size), torch.zeros(1, self.args.state_size), torch.zeros(1, self.env.action_size)
            for t in range(self.args.max_episode_length):
                belief, posterior_state, _, _, _, _ = self.transition_model.observe_step(posterior_state, action, belief, self.encoder(observation.unsqueeze(0)))  # clean: under torch.no_grad()
                action = self.planner(belief, posterior_state)
                frames.append(self.observation_model(belief, posterior_state))  # clean: under torch.no_grad()
                observation, reward, done = self.env.step(action[0])
                total_reward += reward
                if done:
                    break
        self.logger.log('test_rewards', total_reward)
        return total_reward, frames
