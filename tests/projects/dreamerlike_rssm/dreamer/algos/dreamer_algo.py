from typing import NamedTuple

import torch

from dreamer.algos.replay import SamplesFromReplay, initialize_replay_buffer, samples_to_buffer
from dreamer.models.rnns import get_dist, get_feat
from dreamer.utils.buffer import buffer_method, buffer_to
from dreamer.utils.module import FreezeParameters, get_parameters

loss_info_fields = [
    "model_loss",
    "actor_loss",
    "value_loss",
    "prior_entropy",
    "post_entropy",
    "divergence",
    "reward_loss",
    "image_loss",
]
LossInfo = NamedTuple("LossInfo", [(f, torch.Tensor) for f in loss_info_fields])
OptInfo = NamedTuple("OptInfo", [(f, list) for f in
                                 ["loss", "grad_norm_model", "grad_norm_actor", "grad_norm_value"]
                                 + loss_info_fields])


class Dreamer:
    def __init__(
        self,
        batch_size=4,
        batch_length=8,
        train_every=1,
        train_steps=1,
        prefill=0,
        model_lr=6e-4,
        value_lr=8e-5,
        actor_lr=8e-5,
        grad_clip=100.0,
        discount=0.99,
        discount_lambda=0.95,
        horizon=5,
        replay_size=128,
        free_nats=3,
        kl_scale=1,
        type=torch.float,
    ):
        self._batch_size = batch_size
        self.batch_length = batch_length
        self.train_every = train_every
        self.train_steps = train_steps
        self.prefill = prefill
        self.model_lr = model_lr
        self.value_lr = value_lr
        self.actor_lr = actor_lr
        self.grad_clip = grad_clip
        self.discount = discount
        self.discount_lambda = discount_lambda
        self.horizon = horizon
        self.replay_size = replay_size
        self.free_nats = free_nats
        self.kl_scale = kl_scale
        self.type = type
        self.optimizer = None

    def initialize(self, agent, n_itr, batch_B, examples):
        self.agent = agent
        self.n_itr = n_itr
        self.replay_buffer = initialize_replay_buffer(self, examples, batch_B)
        self.optim_initialize()

    def optim_initialize(self):
        model = self.agent.model
        self.model_modules = [
            model.observation_encoder,
            model.context_encoder,
            model.observation_decoder,
            model.reward_model,
            model.representation,
            model.transition,
        ]
        self.actor_modules = [model.action_decoder]
        self.value_modules = [model.value_model]
        self.model_optimizer = torch.optim.Adam(get_parameters(self.model_modules), lr=self.model_lr)
        self.actor_optimizer = torch.optim.Adam(get_parameters(self.actor_modules), lr=self.actor_lr)
        self.value_optimizer = torch.optim.Adam(get_parameters(self.value_modules), lr=self.value_lr)
        self.opt_info_fields = OptInfo._fields

    def optimize_agent(self, itr, samples=None):
        if samples is not None:
            self.replay_buffer.append_samples(samples_to_buffer(samples))

        opt_info = OptInfo(*([] for _ in range(len(OptInfo._fields))))
        if itr < self.prefill:
            return opt_info
        if itr % self.train_every != 0:
            return opt_info
        for i in range(self.train_steps):
            samples_from_replay = self.replay_buffer.sample_batch(self._batch_size, self.batch_length)
            buffed_samples = buffer_to(samples_from_replay, self.agent.device)
            model_loss, actor_loss, value_loss, loss_info = self.loss(buffed_samples, itr, i)

            self.model_optimizer.zero_grad()
            self.actor_optimizer.zero_grad()
            self.value_optimizer.zero_grad()

            model_loss.backward(retain_graph=True)  # known-miss: TLK202
            actor_loss.backward()
            value_loss.backward()

            grad_norm_model = torch.nn.utils.clip_grad_norm_(get_parameters(self.model_modules), self.grad_clip)
            grad_norm_actor = torch.nn.utils.clip_grad_norm_(get_parameters(self.actor_modules), self.grad_clip)
            grad_norm_value = torch.nn.utils.clip_grad_norm_(get_parameters(self.value_modules), self.grad_clip)

            self.model_optimizer.step()
            self.actor_optimizer.step()
            self.value_optimizer.step()

            with torch.no_grad():
                loss = model_loss + actor_loss + value_loss
            opt_info.loss.append(loss.item())
            opt_info.grad_norm_model.append(grad_norm_model.item())
            opt_info.grad_norm_actor.append(grad_norm_actor.item())
            opt_info.grad_norm_value.append(grad_norm_value.item())
            for field in loss_info_fields:
                getattr(opt_info, field).append(getattr(loss_info, field).item())

        return opt_info

    def loss(self, samples: SamplesFromReplay, sample_itr: int, opt_itr: int):
        model = self.agent.model

        observation = samples.all_observation[:-1]  # [t, t+batch_length+1] -> [t, t+batch_length]
        action = samples.all_action[1:]  # [t-1, t+batch_length] -> [t, t+batch_length]
        reward = samples.all_reward[1:].unsqueeze(2)
        batch_t, batch_b = observation.shape[:2]
        batch_size = batch_t * batch_b

        observation = observation.type(self.type)
        embed = model.observation_encoder(observation)
        context = model.context_encoder(observation)

        prev_state = model.representation.initial_state(batch_b, device=action.device, dtype=action.dtype)
        prior, post = model.rollout.rollout_representation(batch_t, embed, action, prev_state)

        # Model Loss
        feat = get_feat(post)
        image_pred = model.observation_decoder(feat, context)
        reward_pred = model.reward_model(feat)
        reward_loss = -torch.mean(reward_pred.log_prob(reward))
        image_loss = -torch.mean(image_pred.log_prob(observation))
        prior_dist = get_dist(prior)
        post_dist = get_dist(post)
        div = torch.mean(torch.distributions.kl.kl_divergence(post_dist, prior_dist))
        div = torch.max(div, div.new_full(div.size(), self.free_nats))
        model_loss = self.kl_scale * div + reward_loss + image_loss

        # ------------------------------  Gradient Barrier  ------------------------------
        with torch.no_grad():
            flat_post = buffer_method(post, "reshape", batch_size, -1)
        with FreezeParameters(self.model_modules):
            imag_dist, _ = model.rollout.rollout_policy(self.horizon, model.policy, flat_post)

        imag_feat = get_feat(imag_dist)
        with FreezeParameters(self.model_modules + self.value_modules):
            imag_reward = model.reward_model(imag_feat).mean
            value = model.value_model(imag_feat).mean
        discount_arr = self.discount * torch.ones_like(imag_reward)
        returns = self.compute_return(imag_reward[:-1], value[:-1], discount_arr[:-1],
                                      bootstrap=value[-1], lambda_=self.discount_lambda)
        discount_arr = torch.cat([torch.ones_like(discount_arr[:1]), discount_arr[1:]])
        discount = torch.cumprod(discount_arr[:-1], 0)
        actor_loss = -torch.mean(discount * returns)

        # ------------------------------  Gradient Barrier  ------------------------------
        with torch.no_grad():
            value_feat = imag_feat[:-1].detach()
            value_discount = discount.detach()
            value_target = returns.detach()
        value_pred = model.value_model(value_feat)
        log_prob = value_pred.log_prob(value_target)
        value_loss = -torch.mean(value_discount * log_prob.unsqueeze(2))

        with torch.no_grad():
            prior_ent = torch.mean(prior_dist.entropy())
            post_ent = torch.mean(post_dist.entropy())
            loss_info = LossInfo(model_loss, actor_loss, value_loss, prior_ent, post_ent, div,
                                 reward_loss, image_loss)

        return model_loss, actor_loss, value_loss, loss_info

    def compute_return(self, reward, value, discount, bootstrap, lambda_: float):
        next_values = torch.cat([value[1:], bootstrap[None]], 0)
        target = reward + discount * next_values * (1 - lambda_)
        timesteps = list(range(reward.shape[0] - 1, -1, -1))
        outputs = []
        accumulated_reward = bootstrap
        for t in timesteps:
            inp = target[t]
            discount_factor = discount[t]
            accumulated_reward = inp + discount_factor * lambda_ * accumulated_reward
            outputs.append(accumulated_reward)
        returns = torch.flip(torch.stack(outputs), [0])
        return returns
