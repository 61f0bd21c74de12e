# Modelled on: https://github.com/nikhilbarhate99/PPO-PyTorch
"""Train a PPO agent on a synthetic drifting environment (CPU, tiny MLPs)."""
import torch

import utils
from agent import PPOAgent
from env import DriftEnv

STATE_DIM = 6
N_ACTIONS = 2
ROLLOUT_LEN = 24


def collect(agent, env, state, n):
    total_reward = 0.0
    for _ in range(n):
        action, logprob, value = agent.select_action(state)
        next_state, reward, done = env.step(action)
        agent.buffer.add(state, action, logprob, value, reward, done)
        total_reward += reward
        state = env.reset() if done else next_state
    return state, total_reward


def main(steps=10):
    torch.manual_seed(0)
    env = DriftEnv(STATE_DIM, N_ACTIONS)
    agent = PPOAgent(STATE_DIM, N_ACTIONS)
    logger = utils.EpisodeLogger("drift")
    state = env.reset()
    running_loss = 0.0
    ev_sum = 0.0
    reward_sum = 0.0
    for update in range(steps):
        state, ep_reward = collect(agent, env, state, ROLLOUT_LEN)
        info = agent.update()
        running_loss += info["loss"]  # expect: TLK101
        ev_sum += utils.explained_variance(info["values"], info["targets"])  # CLEAN: helper returns .item()
        reward_sum += ep_reward
        logger.log(entropy=info["entropy"], reward=ep_reward)
        if (update + 1) % 5 == 0:
            print(f"update {update + 1}: loss {float(running_loss) / (update + 1):.4f} "
                  f"ev {ev_sum / (update + 1):.3f} reward {reward_sum / (update + 1):.2f}")
    return {"agent": agent, "logger": logger, "running_loss": running_loss}


if __name__ == "__main__":
    main(20)
