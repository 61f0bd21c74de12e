# Modelled on: https://github.com/PwnerHarry/DQN
import torch

from envs import PointNavEnv
from models import NETWORKS
from dqn import DQN
from utils import set_global_seeds


def warmup(agent, env, n):
    obs = env.reset()
    for _ in range(n):
        action = env.sample_action()
        obs_next, reward, done = env.step(action)
        agent.replay_buffer.add(obs, action, reward, obs_next, done)
        obs = env.reset() if done else obs_next


def evaluate(agent, env, n_steps=20):
    obs, ret = env.reset(), 0.0
    with torch.no_grad():
        for _ in range(n_steps):
            values = agent.network_policy(obs.unsqueeze(0))
            agent.eval_q_trace.append(values.max())  # CLEAN: recorded under torch.no_grad()
            obs, reward, done = env.step(int(values.argmax()))
            ret += reward
            if done:
                break
    return ret


def main(n_steps=1000, network='dqn', seed=0, eval_every=10, print_every=100):
    set_global_seeds(seed)
    env = PointNavEnv(seed=seed)
    eval_env = PointNavEnv(seed=seed + 1)
    net = NETWORKS[network](env.obs_dim, env.n_actions)
    agent = DQN(net, env.n_actions)
    warmup(agent, env, agent.size_batch * 2)

    curve = []
    obs = env.reset()
    for t in range(n_steps):
        action = agent.decide(obs)
        obs_next, reward, done = env.step(action)
        loss = agent.step(obs, action, reward, obs_next, done)
        if loss is not None:
            curve.append(loss)
        obs = env.reset() if done else obs_next
        if (t + 1) % eval_every == 0:
            evaluate(agent, eval_env)
        if (t + 1) % print_every == 0:
            print('t=%d mean_loss=%.4f episodes=%d' % (t + 1, agent.stats.mean_loss(),
                                                      len(agent.stats.episode_returns)))
            agent.stats.reset_losses()
    return agent, curve


if __name__ == '__main__':
    main()
