# Source: https://github.com/carpedm20/ENAS-pytorch/blob/master/trainer.py
# Shape: an ENAS controller's sample(with_details=True) runs an LSTMCell over the architecture decisions, collecting each decision's log-prob and entropy in lists that it concatenates and returns; train_controller() turns the entropies into plain values via .data, computes the reward without grad, keeps an exponential-moving-average baseline of the (graph-free) rewards across steps, backwards -log_probs * advantage every step and only accumulates loss.data and plain histories, so the per-step REINFORCE lists are consumed by the same step's backward.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

STEPS = 50


class Controller(nn.Module):
    def __init__(self, num_blocks=6, num_funcs=4, hidden=64):
        super().__init__()
        self.num_blocks = num_blocks
        self.cell = nn.LSTMCell(hidden, hidden)
        self.encoder = nn.Embedding(num_funcs + num_blocks, hidden)
        self.func_decoder = nn.Linear(hidden, num_funcs)
        self.node_decoder = nn.Linear(hidden, num_blocks)
        self.hidden = hidden

    def sample(self, batch_size=1, with_details=False):
        inputs = torch.zeros(batch_size, self.hidden)
        hx = cx = torch.zeros(batch_size, self.hidden)
        log_probs, entropies, actions = [], [], []
        for block_idx in range(2 * self.num_blocks):
            hx, cx = self.cell(inputs, (hx, cx))
            decoder = self.func_decoder if block_idx % 2 else self.node_decoder
            logits = decoder(hx)[:, : (block_idx // 2) + 1] if block_idx % 2 == 0 else decoder(hx)
            dist = Categorical(logits=logits)
            action = dist.sample()
            entropies.append(dist.entropy())
            log_probs.append(dist.log_prob(action))
            actions.append(action)
            inputs = self.encoder(action + (0 if block_idx % 2 else 4))
        dags = torch.stack(actions, dim=1).tolist()
        if with_details:
            return dags, torch.cat(log_probs), torch.cat(entropies)
        return dags


class SharedRNN(nn.Module):
    def __init__(self, vocab=50, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cells = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(4)])
        self.out = nn.Linear(hidden, vocab)

    def forward(self, inputs, dag):
        h = self.embed(inputs)
        for choice in dag[0][1::2]:
            h = torch.tanh(self.cells[choice](h)) + h
        return self.out(h)


def get_reward(shared, dag, entropies, entropy_coeff=1e-4, reward_c=80):
    inputs, targets = torch.randint(0, 50, (35, 4)), torch.randint(0, 50, (35 * 4,))
    valid_loss = F.cross_entropy(shared(inputs, dag).view(-1, 50), targets).item()
    valid_ppl = math.exp(valid_loss)
    return reward_c / valid_ppl + entropy_coeff * entropies


controller, shared = Controller(), SharedRNN()
controller_optim = torch.optim.Adam(controller.parameters(), lr=3.5e-4)
baseline = None
adv_history, entropy_history, reward_history = [], [], []
total_loss = 0
for step in range(STEPS):
    dags, log_probs, entropies = controller.sample(with_details=True)
    np_entropies = entropies.data
    with torch.no_grad():
        rewards = get_reward(shared, dags, np_entropies)
    reward_history.extend(rewards.tolist())
    entropy_history.extend(np_entropies.tolist())
    if baseline is None:
        baseline = rewards
    else:
        decay = 0.95
        baseline = decay * baseline + (1 - decay) * rewards
    adv = rewards - baseline
    adv_history.extend(adv.tolist())
    loss = -log_probs * adv
    loss = loss.sum()
    controller_optim.zero_grad()
    loss.backward()
    controller_optim.step()
    total_loss += loss.data.item()
    if step % 20 == 0 and step > 0:
        reward_history, adv_history, entropy_history = [], [], []
print(total_loss / STEPS)
