# Source: https://github.com/qbx2/PAAC.pytorch/issues/1
# Shape: In the PAAC master loop the per-update policy loss is added to the print-interval statistic as a tensor (loss_p_sum += loss_p instead of loss_p.data[0]); the statistic is only flushed every print_step updates, so the graphs of all n-step rollouts since the last print stay chained to it.
# Verdict: leak
import io

import torch
import torch.nn as nn

INPUT_CHANNELS = 2
INPUT_IMAGE_SIZE = (10, 10)


class Args:
    n_e = 4            # environments
    t_max = 5          # local steps per update
    gamma = 0.99
    beta = 0.01        # entropy strength
    epsilon = 1e-30
    clip = 40.0
    learning_rate = 0.00224
    print_step = 100
    save_step = 1000
    num_actions = 3


class ToyVecEnv:
    """Vectorised toy game: the rewarded action is encoded as the brightest row band of the frame."""

    def __init__(self, n_e, num_actions, seed=0):
        self.g = torch.Generator().manual_seed(seed)
        self.n_e, self.num_actions = n_e, num_actions
        self.goal = torch.randint(0, num_actions, (n_e,), generator=self.g)
        self.left = torch.randint(5, 15, (n_e,), generator=self.g)

    def observe(self):
        obs = 0.1 * torch.rand(self.n_e, *INPUT_IMAGE_SIZE, generator=self.g)
        band = INPUT_IMAGE_SIZE[0] // self.num_actions
        for i in range(self.n_e):
            obs[i, self.goal[i] * band:(self.goal[i] + 1) * band] += 1.0
        return obs

    def step(self, actions):
        rewards = (torch.tensor(actions) == self.goal).float()
        self.left -= 1
        done = self.left <= 0
        new_goal = torch.randint(0, self.num_actions, (self.n_e,), generator=self.g)
        self.goal = torch.where(done, new_goal, self.goal)
        self.left = torch.where(done, torch.randint(5, 15, (self.n_e,), generator=self.g), self.left)
        return self.observe(), rewards, done.float()


def make_batches(args=Args, seed=0):
    return ToyVecEnv(args.n_e, args.num_actions, seed=seed)


class PAACNet(nn.Module):
    def __init__(self, num_actions):
        super().__init__()
        self.conv_layers = nn.Sequential(nn.Conv2d(INPUT_CHANNELS, 8, 3, 1), nn.ReLU(),
                                         nn.Conv2d(8, 16, 3, 2), nn.ReLU())
        self.fc = nn.Linear(16 * 3 * 3, 64)
        self.policy_output = nn.Sequential(nn.Linear(64, num_actions), nn.Softmax(dim=1))
        self.value_output = nn.Linear(64, 1)

    def forward(self, x):
        x = self.conv_layers(x)
        x = torch.relu(self.fc(x.view(x.size(0), -1)))
        return self.policy_output(x), self.value_output(x)

    def value(self, x):
        return self.forward(x)[1]

    @staticmethod
    def log_and_negated_entropy(x, epsilon):
        log_x = (x + epsilon).log()
        return log_x, (x * log_x).sum()

    @staticmethod
    def get_loss(q_values, values, log_a):
        diff = q_values - values
        loss_p = -(diff.detach() * log_a).mean()
        double_loss_v = diff.pow(2).mean()
        loss = loss_p + 0.25 * double_loss_v
        return loss_p, double_loss_v, loss


class Master:
    def __init__(self, args):
        self.args = args
        self.env = make_batches(args)
        self.paac = PAACNet(args.num_actions)
        self.optim = torch.optim.RMSprop(self.paac.parameters(), args.learning_rate, alpha=0.99, eps=0.1)
        self.stats = {"loss_p": [], "loss_v": [], "entropy": [], "scores": []}

    def train(self, n_max):
        args, optim = self.args, self.optim
        n_e, t_max, gamma, beta = args.n_e, args.t_max, args.gamma, args.beta
        values = torch.zeros(t_max, n_e)
        log_a = torch.zeros(t_max, n_e)
        states = torch.zeros(n_e, INPUT_CHANNELS, *INPUT_IMAGE_SIZE)
        rewards = torch.zeros(t_max, n_e)
        terminals = torch.zeros(t_max, n_e)
        q_values = torch.zeros(t_max + 1, n_e)
        rewards_accumulated = torch.zeros(n_e)
        scores = []
        loss_p_sum = double_loss_v_sum = entropy_sum = 0
        states[:, -1] = self.env.observe()
        self.paac.train()
        for n in range(n_max):
            values = values.detach()
            log_a = log_a.detach()
            negated_entropy_sum = 0
            for t in range(t_max):
                for i, terminal in enumerate(terminals[t - 1]):
                    if terminal:
                        scores.append(rewards_accumulated[i].item())
                        rewards_accumulated[i] = 0
                        states[i].fill_(0)
                # states must be cloned for gradient calculation
                paac_p, paac_v = self.paac(states.clone())
                values[t] = paac_v.squeeze(1)
                log_paac_p, negated_h = self.paac.log_and_negated_entropy(paac_p, args.epsilon)
                negated_entropy_sum += negated_h
                actions = torch.multinomial(paac_p.detach(), 1).squeeze(1).tolist()
                for i in range(n_e):
                    log_a[t, i] = log_paac_p[i, actions[i]]
                obs, reward, done = self.env.step(actions)
                states[:, :-1], states[:, -1] = states[:, 1:].clone(), obs
                rewards[t], terminals[t] = reward, done
                rewards_accumulated += reward
            entropy = -negated_entropy_sum / n_e
            entropy_sum += entropy.item()
            with torch.no_grad():
                q_values[t_max] = self.paac.value(states).squeeze(1)
            loss_sum = 0
            for t in reversed(range(t_max)):
                q_values[t] = rewards[t] + (1. - terminals[t]) * gamma * q_values[t + 1]
                loss_p, double_loss_v, loss = self.paac.get_loss(q_values[t], values[t], log_a[t])
                loss_sum += loss
                loss_p_sum += loss_p  # TLK101
                double_loss_v_sum += double_loss_v.item()
            # entropy term
            loss_sum -= beta * entropy
            optim.zero_grad()
            loss_sum.backward()
            torch.nn.utils.clip_grad_norm_(self.paac.parameters(), args.clip)
            optim.step()
            if n % args.print_step == args.print_step - 1:
                self.stats["loss_p"].append(float(loss_p_sum) / args.print_step / t_max)
                self.stats["loss_v"].append(double_loss_v_sum / 2. / args.print_step / t_max)
                self.stats["entropy"].append(entropy_sum / args.print_step / t_max)
                self.stats["scores"].append(sum(scores) / max(len(scores), 1))
                loss_p_sum = double_loss_v_sum = entropy_sum = 0
                scores = []
        self.pending = {"loss_p_sum": loss_p_sum, "loss_v_sum": double_loss_v_sum, "scores": scores}
        return self.stats

    def save(self, iteration=0):
        buf = io.BytesIO()
        torch.save({"iteration": iteration, "paac": self.paac.state_dict(),
                    "optimizer": self.optim.state_dict()}, buf)
        return len(buf.getvalue())


def run(steps):
    torch.manual_seed(0)
    master = Master(Args())
    master.train(steps)
    master.save(steps)
    return master


if __name__ == "__main__":
    run(10)
