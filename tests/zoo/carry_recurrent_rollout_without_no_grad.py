# Source: https://github.com/Metta-AI/metta/pull/1139
# Shape: PPO experience collection with an LSTM policy runs with autograd on and carries the LSTM state from env step to env step (and from rollout to rollout); the update recomputes everything from stored observations, so the state's ever-longer chain of graphs is never freed
# Verdict: leak
import torch


def collect_and_train(policy, envs, buffer, ppo_update, total_updates=10_000, horizon=128):
    obs = torch.as_tensor(envs.reset(), dtype=torch.float32)
    episode_start = torch.ones(envs.num_envs)
    lstm_state = policy.initial_state(envs.num_envs)
    for update in range(total_updates):
        buffer.reset()
        start_state = tuple(s.detach().clone() for s in lstm_state)
        for t in range(horizon):
            dist, value, lstm_state = policy(obs, lstm_state, episode_start)  # TLK103
            action = dist.sample()
            next_obs, reward, done, info = envs.step(action.cpu().numpy())
            buffer.add(
                obs=obs,
                action=action,
                log_prob=dist.log_prob(action).detach(),
                value=value.detach(),
                reward=torch.as_tensor(reward),
                done=torch.as_tensor(done),
            )
            episode_start = torch.as_tensor(done, dtype=torch.float32)
            obs = torch.as_tensor(next_obs, dtype=torch.float32)
        ppo_update(policy, buffer, start_state)
