# Source: https://github.com/cuhksz-nlp/R2Gen/issues/11
# Shape: self-critical sequence training for report generation: the greedy baseline is decoded in eval mode under torch.no_grad(), the sampled report is decoded with grad and its per-step log-probabilities are appended to a list inside the decoding loop, and the REINFORCE loss built from that list is backwarded in the same iteration; every graph kept is consumed.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ReportDecoder(nn.Module):
    def __init__(self, vocab_size, feat_dim=2048, hidden=512, bos_id=1, eos_id=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.init_h = nn.Linear(feat_dim, hidden)
        self.cell = nn.GRUCell(hidden + feat_dim, hidden)
        self.out = nn.Linear(hidden, vocab_size)
        self.bos_id, self.eos_id = bos_id, eos_id

    def sample(self, feats, max_len=60, greedy=False):
        pooled = feats.mean(dim=1)
        h = torch.tanh(self.init_h(pooled))
        token = torch.full((feats.size(0),), self.bos_id, dtype=torch.long, device=feats.device)
        seq, seq_logprobs = [], []
        for t in range(max_len):
            h = self.cell(torch.cat([self.embed(token), pooled], dim=-1), h)
            logprobs = F.log_softmax(self.out(h), dim=-1)
            token = logprobs.argmax(dim=-1) if greedy else torch.multinomial(logprobs.exp(), 1).squeeze(1)
            seq.append(token)
            seq_logprobs.append(logprobs.gather(1, token.unsqueeze(1)).squeeze(1))
            if (token == self.eos_id).all():
                break
        return torch.stack(seq, dim=1), torch.stack(seq_logprobs, dim=1)


def scst_step(model: ReportDecoder, feats, gts, optimizer, cider_scorer, max_len=60):
    model.eval()
    with torch.no_grad():
        greedy_seq, _ = model.sample(feats, max_len=max_len, greedy=True)
    model.train()
    sample_seq, sample_logprobs = model.sample(feats, max_len=max_len)
    reward = cider_scorer(sample_seq.tolist(), gts) - cider_scorer(greedy_seq.tolist(), gts)
    reward = torch.as_tensor(reward, dtype=torch.float32, device=feats.device).unsqueeze(1)
    mask = (sample_seq != 0).float()
    loss = -(reward * sample_logprobs * mask).sum() / mask.sum()
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    optimizer.step()
    return loss.item(), reward.mean().item()


def train_scst(model, loader, epochs, cider_scorer, lr=5e-5):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        rewards = []
        for feats, gts in loader:
            loss, mean_reward = scst_step(model, feats.cuda(), gts, optimizer, cider_scorer)
            rewards.append(mean_reward)
        print(f"epoch {epoch}: mean reward {sum(rewards) / len(rewards):.4f}")
