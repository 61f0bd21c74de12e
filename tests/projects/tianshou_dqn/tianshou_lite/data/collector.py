import time
from typing import Any, Callable, Dict, Optional

import torch

from tianshou_lite.data.batch import Batch
from tianshou_lite.data.buffer import ReplayBuffer
from tianshou_lite.data.utils.converter import to_host
from tianshou_lite.env import DummyVectorEnv
from tianshou_lite.policy import BasePolicy


class Collector(object):
    """Collector enables the policy to interact with different types of envs with
    exact number of steps or episodes.

    :param policy: an instance of the :class:`~tianshou.policy.BasePolicy` class.
    :param env: a ``DummyVectorEnv``.
    :param buffer: an instance of :class:`~tianshou.data.ReplayBuffer`. If set to
        None, it will not store the data. Default to None.
    :param function preprocess_fn: a function called before the data has been added
        to the buffer, see issue #42 and :ref:`preprocess_fn`. Default to None.
    :param bool exploration_noise: determine whether the action needs to be modified
        with corresponding policy's exploration noise. Default to False.
    """

    def __init__(
        self,
        policy: BasePolicy,
        env: DummyVectorEnv,
        buffer: Optional[ReplayBuffer] = None,
        preprocess_fn: Optional[Callable[..., Batch]] = None,
        exploration_noise: bool = False,
    ) -> None:
        super().__init__()
        self.env = env
        self.env_num = len(env)
        self.exploration_noise = exploration_noise
        self.buffer = buffer if buffer is not None else ReplayBuffer(self.env_num)
        self.policy = policy
        self.preprocess_fn = preprocess_fn
        self.reset()

    def reset(self) -> None:
        """Reset all related variables in the collector."""
        self.data = Batch(obs={}, act={}, rew={}, done={}, obs_next={}, info={}, policy={})
        self.reset_env()
        self.reset_stat()

    def reset_stat(self) -> None:
        self.collect_step, self.collect_episode, self.collect_time = 0, 0, 0.0

    def reset_env(self) -> None:
        obs = self.env.reset()
        if self.preprocess_fn:
            obs = self.preprocess_fn(obs=obs).get("obs", obs)
        self.data.obs = obs

    def collect(self, n_step: int, random: bool = False) -> Dict[str, Any]:
        """Collect a specified number of step with async env setting.

        :return: A dict including the following keys ``n/ep``, ``n/st``, ``rews``,
            ``lens``, ``rew``, ``len``, ``rew_std``, ``len_std``.
        """
        assert n_step > 0
        start_time = time.time()
        step_count = 0
        episode_count = 0
        episode_rews = []
        episode_lens = []

        while True:
            last_state = self.data.policy.pop("hidden_state", None)
            if random:
                self.data.update(act=torch.randint(self.env.action_num, (self.env_num,)))
            else:
                result = self.policy(self.data, last_state)
                policy = result.get("policy", Batch())
                state = result.get("state", None)
                if state is not None:
                    policy.hidden_state = state
                act = to_host(result.act)
                if self.exploration_noise:
                    act = self.policy.exploration_noise(act, self.data)
                self.data.update(policy=policy, act=act)  # known-miss: TLK102

            action_remap = self.policy.map_action(self.data.act)
            obs_next, rew, done, info = self.env.step(action_remap)
            self.data.update(obs_next=obs_next, rew=rew, done=done, info=info)
            if self.preprocess_fn:
                self.data.update(
                    self.preprocess_fn(obs_next=self.data.obs_next, rew=self.data.rew, done=self.data.done)
                )

            ptr, ep_rew, ep_len, ep_idx = self.buffer.add(self.data)
            step_count += self.env_num

            if bool(done.any()):
                env_ind = torch.nonzero(done).flatten()
                episode_count += len(env_ind)
                episode_lens.append(ep_len[env_ind])
                episode_rews.append(ep_rew[env_ind])
                obs_reset = self.env.reset(env_ind)
                if self.preprocess_fn:
                    obs_reset = self.preprocess_fn(obs=obs_reset).get("obs", obs_reset)
                obs_next = self.data.obs_next.clone()
                obs_next[env_ind] = obs_reset
                self.data.obs_next = obs_next

            self.data.obs = self.data.obs_next
            if step_count >= n_step:
                break

        self.collect_step += step_count
        self.collect_episode += episode_count
        self.collect_time += max(time.time() - start_time, 1e-9)

        if episode_count > 0:
            rews = torch.cat(episode_rews)
            lens = torch.cat(episode_lens).float()
            rew_mean, rew_std = rews.mean().item(), rews.std(unbiased=False).item()
            len_mean, len_std = lens.mean().item(), lens.std(unbiased=False).item()
        else:
            rews, lens = torch.zeros(0), torch.zeros(0)
            rew_mean = rew_std = len_mean = len_std = 0.0

        return {
            "n/ep": episode_count,
            "n/st": step_count,
            "rews": rews,
            "lens": lens,
            "rew": rew_mean,
            "len": len_mean,
            "rew_std": rew_std,
            "len_std": len_std,
        }
