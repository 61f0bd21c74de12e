# Modelled on toshikwa/gail-airl-ppo.pytorch (train_imitation.py, gail_airl_ppo/trainer.py,
# algo/ppo.py, algo/gail.py, network/policy.py, network/disc.py, buffer.py, utils.py): a Trainer
# steps the environment through the algorithm, which fills a rollout buffer, updates a GAIL
# discriminator against expert demonstrations and then runs PPO on the discriminator's reward.
# Written anew and much smaller, with a gradient penalty on the discriminator; a point-mass
# environment and random "expert" transitions stand in for MuJoCo and the saved demonstrations.
from time import time

import torch

from buffer import SerializedBuffer
from gail import GAIL


class PointEnv:
    """Move a point towards the origin; the action is a bounded velocity."""

    state_shape = (3,)
    action_shape = (1,)
    max_episode_steps = 16

    def __init__(self, seed=0):
        self.generator = torch.Generator().manual_seed(seed)
        self.t = 0

    def reset(self):
        self.t = 0
        self.state = torch.rand(3, generator=self.generator) * 2 - 1
        return self.state

    def step(self, action):
        self.t += 1
        self.state = self.state.clone()
        self.state[:1] = (self.state[:1] + 0.1 * action.clamp(-1, 1)).clamp(-2, 2)
        reward = -float(self.state[:1].abs().sum())
        done = self.t >= self.max_episode_steps
        return self.state, reward, done


class Trainer:
    def __init__(self, env, env_test, algo, num_steps=128, eval_interval=64, num_eval_episodes=2):
        self.env = env
        self.env_test = env_test
        self.algo = algo
        self.num_steps = num_steps
        self.eval_interval = eval_interval
        self.num_eval_episodes = num_eval_episodes
        self.disc_losses = []

    def train(self):
        self.start_time = time()
        # Episode's timestep.
        t = 0
        # Initialize the environment.
        state = self.env.reset()
        for step in range(1, self.num_steps + 1):
            # Pass to the algorithm to update state and episode timestep.
            state, t = self.algo.step(self.env, state, t, step)
            # Update the algorithm whenever ready.
            if self.algo.is_update(step):
                loss_disc = self.algo.update()
                self.disc_losses.append(loss_disc)
            # Evaluate regularly.
            if step % self.eval_interval == 0:
                self.evaluate(step)
                self.algo.logger.flush()

    def evaluate(self, step):
        mean_return = 0.0
        expert_likeness = []
        for _ in range(self.num_eval_episodes):
            state = self.env_test.reset()
            episode_return = 0.0
            done = False
            while not done:
                action = self.algo.exploit(state)
                expert_likeness.append(self.algo.disc_score(state, action))  # expect: TLK102 (the evaluation loop runs without no_grad; GAIL.disc_score in gail.py returns sigmoid of the discriminator's output, attached to its parameters, and the list keeps every step's graph until the episode loop ends)
                state, reward, done = self.env_test.step(action)
                episode_return += reward
            mean_return += episode_return / self.num_eval_episodes
        self.algo.logger.add_scalar("return/test", mean_return, step)
        self.algo.logger.add_scalar("stats/d_test", torch.stack(expert_likeness).mean().item(), step)
        print(f"Num steps: {step:<6}   Return: {mean_return:<5.1f}   Time: {time() - self.start_time:.1f}s")


def load_expert_buffer(n=256, env=PointEnv):
    states = torch.rand(n, *env.state_shape) * 2 - 1
    # The "expert" pushes the point straight to the origin.
    actions = (-states[:, :1]).clamp(-1, 1)
    return SerializedBuffer(states, actions)


def pretrain_bc(actor, buffer_exp, n_steps=50, batch_size=64, lr=1e-3, log_every=25):
    """Behaviour cloning on the demonstrations before GAIL starts (maximum likelihood)."""
    optimizer = torch.optim.Adam(actor.parameters(), lr=lr)
    running_nll = 0.0
    for step in range(n_steps):
        states, actions = buffer_exp.sample(batch_size)
        loss = -actor.evaluate_log_pi(states, actions).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_nll += loss  # expect: TLK101
        if (step + 1) % log_every == 0:
            print(f"bc step {step + 1}: nll {running_nll / log_every:.3f}")
            running_nll = 0.0


def run(num_steps=128, bc_steps=50):
    torch.manual_seed(0)
    env, env_test = PointEnv(seed=0), PointEnv(seed=1)
    buffer_exp = load_expert_buffer()
    algo = GAIL(buffer_exp=buffer_exp, state_shape=env.state_shape, action_shape=env.action_shape, rollout_length=64)
    pretrain_bc(algo.actor, buffer_exp, n_steps=bc_steps)
    trainer = Trainer(env=env, env_test=env_test, algo=algo, num_steps=num_steps)
    trainer.train()
    return trainer


if __name__ == "__main__":
    run()
