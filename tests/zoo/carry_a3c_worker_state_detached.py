# Source: https://github.com/ikostrikov/pytorch-a3c/blob/721a3c38d729652b6432226c281d8a677d27a93c/train.py
# Shape: actor-critic worker with an LSTM policy: at the start of every rollout the (hx, cx) state is either re-zeroed (episode over) or detached, then carried across the rollout's steps and backwarded once
# Verdict: clean
import torch
import torch.nn.functional as F


def worker(rank, shared_model, local_model, env, optimizer, num_steps=20, gamma=0.99):
    obs = torch.from_numpy(env.reset())
    done = True
    while True:
        local_model.load_state_dict(shared_model.state_dict())
        if done:
            hx = torch.zeros(1, 256)
            cx = torch.zeros(1, 256)
        else:
            hx = hx.detach()
            cx = cx.detach()

        values, log_probs, rewards, entropies = [], [], [], []
        for _ in range(num_steps):
            value, logits, (hx, cx) = local_model((obs.unsqueeze(0), (hx, cx)))
            prob = F.softmax(logits, dim=-1)
            log_prob = F.log_softmax(logits, dim=-1)
            entropies.append(-(log_prob * prob).sum(1, keepdim=True))
            action = prob.multinomial(num_samples=1).detach()
            log_probs.append(log_prob.gather(1, action))
            obs, reward, done, _ = env.step(action.item())
            obs = torch.from_numpy(obs)
            values.append(value)
            rewards.append(max(min(reward, 1), -1))
            if done:
                obs = torch.from_numpy(env.reset())
                break

        R = torch.zeros(1, 1) if done else local_model((obs.unsqueeze(0), (hx, cx)))[0].detach()
        policy_loss, value_loss = 0, 0
        for i in reversed(range(len(rewards))):
            R = gamma * R + rewards[i]
            advantage = R - values[i]
            value_loss = value_loss + 0.5 * advantage.pow(2)
            policy_loss = policy_loss - log_probs[i] * advantage.detach() - 0.01 * entropies[i]
        optimizer.zero_grad()
        (policy_loss + 0.5 * value_loss).backward()
        optimizer.step()
