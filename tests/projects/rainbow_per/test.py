# Modelled on test.py of Kaixhin/Rainbow: test(args, T, dqn, val_mem, metrics, results_dir)
# plays evaluation episodes with act_e_greedy and averages dqn.evaluate_q over the held-out
# validation memory for the Q-value plot, storing both in the metrics dict across calls.
import random

import torch


def test(args, T, dqn, val_mem, metrics, env):
    metrics['steps'].append(T)
    T_rewards, T_Qs, T_acts = [], [], []
    dqn.eval()
    for _ in range(args.evaluation_episodes):
        state, reward_sum, done = env.reset(), 0.0, False
        while not done:
            action = dqn.act(state) if random.random() > 0.001 else random.randrange(env.action_space())
            state, reward, done = env.step(action)
            reward_sum += reward
        T_rewards.append(reward_sum)

    for state in val_mem:
        T_Qs.append(dqn.evaluate_q(state))  # expect: TLK102
        T_acts.append(dqn.act_q(state))  # clean: Agent.act_q in agent.py runs the network under torch.no_grad()
    dqn.train()
    avg_reward = sum(T_rewards) / len(T_rewards)
    avg_Q = torch.cat(T_Qs).mean().item()
    metrics['rewards'].append(T_rewards)
    metrics['Qs'].append(avg_Q)
    return avg_reward, avg_Q, torch.cat(T_acts)
