# Source: https://github.com/ZhaoningYu1996/DPO-Trainer/blob/3df8f278c1b90901ec0cee9d7e2468103fb93e40/dpo_trainer.py
# Shape: fixed twin: reward margins are logged as floats and the epoch loss is summed with loss.item(), so nothing attached outlives its step.
# Verdict: clean
from collections import defaultdict
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---------------------------------------------------------------- model.py
class CausalLMOutput:
    def __init__(self, logits):
        self.logits = logits


class TinyCausalLM(nn.Module):
    """Stand-in for AutoModelForCausalLM('gpt2'): embedding -> 1 transformer block -> lm_head."""

    def __init__(self, vocab_size=64, d_model=32, n_head=2):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, d_model)
        self.wpe = nn.Embedding(64, d_model)
        self.block = nn.TransformerEncoderLayer(d_model, n_head, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids):
        T = input_ids.size(1)
        pos = torch.arange(T, device=input_ids.device)
        h = self.wte(input_ids) + self.wpe(pos)
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        h = self.block(h, src_mask=mask, is_causal=True)
        return CausalLMOutput(self.lm_head(self.ln_f(h)))


# ---------------------------------------------------------------- loss.py
def sequence_log_prob(logits, input_ids, prompt_len):
    log_probs = F.log_softmax(logits, dim=-1)[:, :-1, :]
    targets = input_ids[:, 1:]
    token_log_probs = log_probs.gather(2, targets.unsqueeze(-1)).squeeze(-1)
    mask = torch.ones_like(token_log_probs)
    mask[:, :prompt_len - 1] = 0
    return (token_log_probs * mask).sum(dim=1)


def dpo_loss(model, reference_model, inputs, beta, device):
    """Returns the DPO loss and the implicit rewards of the chosen / rejected responses."""
    instruction_ids = inputs['instruction_ids'].to(device)
    chosen_ids = inputs['chosen_ids'].to(device)
    rejected_ids = inputs['rejected_ids'].to(device)

    chosen_input = torch.cat([instruction_ids, chosen_ids], dim=1)
    rejected_input = torch.cat([instruction_ids, rejected_ids], dim=1)
    input_length = instruction_ids.size(1)

    chosen_log_prob = sequence_log_prob(model(chosen_input).logits, chosen_input, input_length)
    rejected_log_prob = sequence_log_prob(model(rejected_input).logits, rejected_input, input_length)
    with torch.no_grad():
        ref_chosen_log_prob = sequence_log_prob(reference_model(chosen_input).logits, chosen_input, input_length)
        ref_rejected_log_prob = sequence_log_prob(reference_model(rejected_input).logits, rejected_input, input_length)

    chosen_rewards = beta * (chosen_log_prob - ref_chosen_log_prob)
    rejected_rewards = beta * (rejected_log_prob - ref_rejected_log_prob)
    log_prob_diff = (chosen_log_prob - rejected_log_prob) - (ref_chosen_log_prob - ref_rejected_log_prob)
    loss = -F.logsigmoid(beta * log_prob_diff).mean()
    return loss, chosen_rewards, rejected_rewards


# ---------------------------------------------------------------- dataset.py
class PreferenceDataset:
    """Fixed pool of tokenized (instruction, chosen, rejected) triples."""

    def __init__(self, size=64, prompt_len=8, resp_len=12, vocab=64):
        g = torch.Generator().manual_seed(123)
        self.instruction_ids = torch.randint(0, vocab, (size, prompt_len), generator=g)
        self.chosen_ids = torch.randint(0, vocab, (size, resp_len), generator=g)
        self.rejected_ids = torch.randint(0, vocab, (size, resp_len), generator=g)

    def batch(self, seed, batch_size):
        g = torch.Generator().manual_seed(seed)
        idx = torch.randint(len(self.chosen_ids), (batch_size,), generator=g)
        return {'instruction_ids': self.instruction_ids[idx], 'chosen_ids': self.chosen_ids[idx],
                'rejected_ids': self.rejected_ids[idx]}


# ---------------------------------------------------------------- dpo_trainer.py
def record_rewards(stats, chosen_rewards, rejected_rewards):
    stats['rewards/chosen'].append(chosen_rewards.mean().item())
    stats['rewards/rejected'].append(rejected_rewards.mean().item())
    stats['rewards/margins'].append((chosen_rewards - rejected_rewards).detach().mean().item())


def train_epoch(model, ref_model, optimizer, dataset, batch_seeds, args, device):
    model.train()
    total_loss = 0.0
    stats = defaultdict(list)
    for step, seed in enumerate(batch_seeds):
        batch = dataset.batch(seed, args['batch_size'])
        optimizer.zero_grad()
        loss, chosen_rewards, rejected_rewards = dpo_loss(model, ref_model, batch, args['beta'], device)
        loss.backward()
        optimizer.step()

        total_loss += loss.item()
        record_rewards(stats, chosen_rewards, rejected_rewards)

        if (step + 1) % 10 == 0 or (step + 1) == len(batch_seeds):
            avg_loss = total_loss / (step + 1)
            margin = sum(stats['rewards/margins']) / len(stats['rewards/margins'])
            print(f"  Step {step + 1}/{len(batch_seeds)}, Loss: {float(avg_loss):.4f}, margin: {float(margin):.4f}")
    return total_loss / max(len(batch_seeds), 1), stats


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    args = {'learning_rate': 5e-5, 'beta': 0.1, 'batch_size': 8}
    device = torch.device('cpu')
    model = TinyCausalLM()
    ref_model = deepcopy(model)
    ref_model.to(device)
    ref_model.eval()
    for param in ref_model.parameters():
        param.requires_grad = False
    optimizer = torch.optim.AdamW(model.parameters(), lr=args['learning_rate'])
    dataset = PreferenceDataset()
    avg_loss, stats = train_epoch(model, ref_model, optimizer, dataset, batches, args, device)
    return avg_loss, stats
