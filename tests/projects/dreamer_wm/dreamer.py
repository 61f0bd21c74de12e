import collections
import pathlib
import sys

import numpy as np
import torch
from torch import nn
from torch import distributions as torchd

sys.path.append(str(pathlib.Path(__file__).parent))

import exploration as expl
import models
import tools


to_np = lambda x: x.detach().cpu().numpy()


class Dreamer(nn.Module):
    def __init__(self, obs_space, act_space, config, logger, dataset):
        super(Dreamer, self).__init__()
        self._config = config
        self._logger = logger
        self._should_log = tools.Every(config.log_every)
        self._should_train = tools.Every(config.train_every)
        self._should_pretrain = tools.Once()
        self._should_reset = tools.Every(config.reset_every)
        self._metrics = {}
        self._step = 0
        self._update_count = 0
        self._dataset = dataset
        self._wm = models.WorldModel(obs_space, act_space, self._step, config)
        self._task_behavior = models.ImagBehavior(config, self._wm)
        self._expl_behavior = dict(
            greedy=lambda: self._task_behavior,
            random=lambda: expl.Random(config, act_space),
        )[config.expl_behavior]().to(self._config.device)

    def __call__(self, obs, reset, state=None, training=True):
        step = self._step
        if self._should_reset(step):
            state = None
        if state is not None and reset.any():
            mask = torch.tensor(1 - reset, dtype=torch.float32)
            latent, action = state
            latent = {k: v * mask[:, None] for k, v in latent.items()}
            state = (latent, action * mask[:, None])
        if training:
            steps = self._config.pretrain if self._should_pretrain() else self._should_train(step)
            for _ in range(steps):
                self._train(next(self._dataset))
                self._update_count += 1
                self._logger.scalar("update_count", self._update_count)
            if self._should_log(step):
                self._logger.scalar("post_ent", self._wm.report_entropy())
                self._logger.write()

        policy_output, state = self._policy(obs, state, training)

        if training:
            self._step += len(reset)
            self._logger.step = self._config.action_repeat * self._step
        return policy_output, state

    def _policy(self, obs, state, training):
        if state is None:
            batch_size = len(obs["obs"])
            latent = self._wm.dynamics.initial(batch_size)
            action = torch.zeros((batch_size, self._config.num_actions)).to(self._config.device)
        else:
            latent, action = state
        obs = self._wm.preprocess(obs)
        embed = self._wm.encoder(obs)
        latent, _ = self._wm.dynamics.obs_step(latent, action, embed, obs["is_first"], self._config.collect_dyn_sample)
        if self._config.eval_state_mean:
            latent["stoch"] = latent["mean"]
        feat = self._wm.dynamics.get_feat(latent)
        if not training:
            actor = self._task_behavior.actor(feat)
            action = actor.mode()
        else:
            actor = self._expl_behavior.actor(feat)
            action = actor.sample()
        logprob = actor.log_prob(action)
        action = self._exploration(action, training)
        policy_output = {"action": action, "logprob": logprob}
        state = (latent, action)  # known-miss: TLK103
        return policy_output, state

    def _exploration(self, action, training):
        amount = self._config.expl_amount if training else self._config.eval_noise
        if amount == 0:
            return action
        return torch.clip(torchd.normal.Normal(action, amount).sample(), -1, 1)

    def _train(self, data):
        metrics = {}
        post, context, mets = self._wm._train(data)
        metrics.update(mets)
        start = post
        reward = lambda f, s, a: self._wm.heads["reward"](self._wm.dynamics.get_feat(s)).mode()
        metrics.update(self._task_behavior._train(start, reward)[-1])
        for name, value in metrics.items():
            self._logger.scalar(name, value)


def make_dataset(episodes, config):
    generator = tools.sample_episodes(episodes, config.batch_length, seed=config.seed)
    dataset = tools.from_generator(generator, config.batch_size)
    return dataset


def random_agent_for(config, act_space):
    random_actor = torchd.independent.Independent(
        torchd.uniform.Uniform(
            torch.Tensor(act_space.low).repeat(config.envs, 1),
            torch.Tensor(act_space.high).repeat(config.envs, 1),
        ),
        1,
    )

    def random_agent(o, d, s):
        action = random_actor.sample()
        logprob = random_actor.log_prob(action)
        return {"action": action, "logprob": logprob}, None

    return random_agent


def count_steps(cache):
    return sum(len(ep["reward"]) - 1 for ep in cache.values())


def new_cache():
    return collections.OrderedDict()
