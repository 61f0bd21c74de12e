"""Train Dreamer on a deterministic synthetic environment (CPU).

Replaces rlpyt's runner/sampler with a small serial loop: every iteration the
agent takes one step in each of the B environments, the transition goes into
the sequence replay buffer, and the algorithm runs `train_steps` updates.
"""
# Modelled on: https://github.com/juliusfrost/dreamer-pytorch
import torch

from dreamer.agents.dreamer_agent import DreamerAgent
from dreamer.algos.dreamer_algo import Dreamer
from dreamer.algos.replay import SamplesToBuffer
from dreamer.envs.synthetic import SyntheticEnv
from dreamer.utils.logging import TabularLogger


def build_and_train(n_itr, batch_B=2, obs_size=16, action_size=2, prefill_steps=16, seed=0):
    torch.manual_seed(seed)
    env = SyntheticEnv(batch_B=batch_B, obs_size=obs_size, action_size=action_size, seed=seed)
    agent = DreamerAgent(model_kwargs=dict(action_size=action_size, obs_size=obs_size), seed=seed)
    algo = Dreamer(batch_size=4, batch_length=8, horizon=5, replay_size=batch_B * 64)
    examples = dict(
        observation=torch.zeros(obs_size),
        action=torch.zeros(action_size),
        reward=torch.zeros(()),
        done=torch.zeros((), dtype=torch.bool),
    )
    algo.initialize(agent, n_itr=n_itr, batch_B=batch_B, examples=examples)
    logger = TabularLogger()

    # prefill the replay buffer with random actions
    observation = env.reset()
    with torch.no_grad():
        for _ in range(prefill_steps):
            action = env.random_action()
            env_step = env.step(action)
            algo.replay_buffer.append_samples(
                SamplesToBuffer(observation, env_step.env_info.action, env_step.reward, env_step.done))
            observation = env_step.observation

    agent.reset()
    prev_action = torch.zeros(batch_B, action_size)
    prev_reward = torch.zeros(batch_B)
    for itr in range(n_itr):
        agent.sample_mode(itr)
        agent_step = agent.step(observation, prev_action, prev_reward)
        env_step = env.step(agent_step.action)
        samples = SamplesToBuffer(observation=observation, action=agent_step.action,
                                  reward=env_step.reward, done=env_step.done)
        opt_info = algo.optimize_agent(itr, samples=samples)
        for k in opt_info._fields:
            logger.record(k, getattr(opt_info, k))
        logger.dump(itr)
        observation = env_step.observation
        prev_action = env_step.env_info.action
        prev_reward = env_step.reward
    return agent, algo, logger


def main(steps=10):
    agent, algo, logger = build_and_train(steps)
    return dict(agent=agent, algo=algo, replay=algo.replay_buffer, log=logger.rows)


if __name__ == "__main__":
    out = main(20)
    print(out["log"][-1])
