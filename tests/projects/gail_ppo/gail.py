"""GAIL on top of PPO: the discriminator tells expert from policy transitions (with a gradient
penalty), and its output is the policy's reward."""
import torch
import torch.nn.functional as F

from network import GAILDiscrim
from ppo import PPO
from utils import optimize


class GAIL(PPO):
    def __init__(self, buffer_exp, state_shape, action_shape, batch_size=32, lr_disc=3e-4, epoch_disc=4, lambda_gp=10.0, **kwargs):
        super().__init__(state_shape, action_shape, **kwargs)
        # Expert's buffer.
        self.buffer_exp = buffer_exp
        # Discriminator.
        self.disc = GAILDiscrim(state_shape, action_shape)
        self.learning_steps_disc = 0
        self.optim_disc = torch.optim.Adam(self.disc.parameters(), lr=lr_disc)
        self.batch_size = batch_size
        self.epoch_disc = epoch_disc
        self.lambda_gp = lambda_gp

    def update(self):
        self.learning_steps += 1
        loss_disc_sum = 0.0
        for _ in range(self.epoch_disc):
            self.learning_steps_disc += 1
            # Samples from current policy's trajectories.
            states, actions = self.buffer.sample(self.batch_size)[:2]
            # Samples from expert's demonstrations.
            states_exp, actions_exp = self.buffer_exp.sample(self.batch_size)
            # Update discriminator.
            loss_disc_sum += self.update_disc(states, actions, states_exp, actions_exp)  # expect: TLK101 (update_disc returns loss_disc, still attached after optimize in utils.py ran its backward, so the sum holds every discriminator minibatch's graph until update() returns its .item(); ikostrikov's gail.py adds (gail_loss + grad_pen).item())

        # We don't use reward signals here,
        states, actions, _, dones, log_pis, next_states = self.buffer.get()
        # We use reward signals calculated by the discriminator.
        rewards = self.disc.calculate_reward(states, actions)
        # Update PPO using estimated rewards.
        self.update_ppo(states, actions, rewards, dones, log_pis, next_states)
        return loss_disc_sum.item() / self.epoch_disc

    def update_disc(self, states, actions, states_exp, actions_exp):
        # Output of discriminator is (-inf, inf), not [0, 1].
        logits_pi = self.disc(states, actions)
        logits_exp = self.disc(states_exp, actions_exp)
        # Discriminator is to maximize E_{\pi} [log(1 - D)] + E_{exp} [log(D)].
        loss_pi = -F.logsigmoid(-logits_pi).mean()
        loss_exp = -F.logsigmoid(logits_exp).mean()
        loss_disc = loss_pi + loss_exp
        grad_pen = self.disc.gradient_penalty(states_exp, actions_exp, states, actions)
        # The penalty is a gradient itself: keep the graph for its second derivative.
        optimize(self.optim_disc, loss_disc + self.lambda_gp * grad_pen, retain_graph=True)  # expect: TLK201 (optimize in utils.py calls loss.backward(retain_graph=retain_graph); nothing backwards through this graph again, the gradient penalty's create_graph=True already covers its second derivative)

        if self.learning_steps_disc % self.epoch_disc == 0:
            self.logger.add_scalar("loss/disc", loss_disc.item(), self.learning_steps)
            self.logger.add_scalar("stats/grad_pen", grad_pen, self.learning_steps)  # expect: TLK301 (grad_pen comes from GAILDiscrim.gradient_penalty in network.py, built on torch.autograd.grad(create_graph=True); ScalarLogger.add_scalar in utils.py appends it, attached, to self.scalars, kept for the whole run)
            # Discriminator's accuracies.
            with torch.no_grad():
                acc_pi = (logits_pi < 0).float().mean().item()
                acc_exp = (logits_exp > 0).float().mean().item()
            self.logger.add_scalar("stats/acc_pi", acc_pi, self.learning_steps)
            self.logger.add_scalar("stats/acc_exp", acc_exp, self.learning_steps)
        return loss_disc

    def disc_score(self, state, action):
        """D(s, a) for one transition: how expert-like the discriminator finds it."""
        state = torch.as_tensor(state, dtype=torch.float).unsqueeze(0)
        return torch.sigmoid(self.disc(state, action.unsqueeze(0)))[0, 0]
