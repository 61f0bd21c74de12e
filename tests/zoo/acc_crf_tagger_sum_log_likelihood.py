# Source: https://github.com/pytorch/pytorch/issues/1840
# Shape: A BiLSTM-CRF tagger trained one sentence at a time adds each sentence's negative log-likelihood tensor to sum_log_likelihood for the epoch report.
# Verdict: leak
import torch
import torch.nn as nn


class BiLSTMCRF(nn.Module):
    def __init__(self, vocab_size, n_tags, emb=16, hidden=16):
        super().__init__()
        self.n_tags = n_tags
        self.embed = nn.Embedding(vocab_size, emb)
        self.lstm = nn.LSTM(emb, hidden // 2, bidirectional=True, batch_first=True)
        self.emit = nn.Linear(hidden, n_tags)
        self.transitions = nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = nn.Parameter(torch.zeros(n_tags))

    def emissions(self, words):
        out, _ = self.lstm(self.embed(words).unsqueeze(0))
        return self.emit(out.squeeze(0))

    def forward_score(self, feats):
        alpha = self.start + feats[0]
        for t in range(1, feats.shape[0]):
            alpha = torch.logsumexp(alpha.unsqueeze(1) + self.transitions, dim=0) + feats[t]
        return torch.logsumexp(alpha, dim=0)

    def gold_score(self, feats, tags):
        score = self.start[tags[0]] + feats[0, tags[0]]
        for t in range(1, feats.shape[0]):
            score = score + self.transitions[tags[t - 1], tags[t]] + feats[t, tags[t]]
        return score

    def neg_log_likelihood(self, words, tags):
        feats = self.emissions(words)
        return self.forward_score(feats) - self.gold_score(feats, tags)

    @torch.no_grad()
    def viterbi(self, words):
        feats = self.emissions(words)
        score = self.start + feats[0]
        back = []
        for t in range(1, feats.shape[0]):
            best, idx = (score.unsqueeze(1) + self.transitions).max(dim=0)
            back.append(idx)
            score = best + feats[t]
        path = [int(score.argmax())]
        for idx in reversed(back):
            path.append(int(idx[path[-1]]))
        return path[::-1]


def train(model, sentences, optimizer, report_every=8):
    sum_log_likelihood = 0.0
    for i, (words, tags) in enumerate(sentences):
        model.zero_grad()
        neg_log_likelihood = model.neg_log_likelihood(words, tags)
        neg_log_likelihood.backward()
        optimizer.step()
        sum_log_likelihood += neg_log_likelihood  # TLK101
        if (i + 1) % report_every == 0:
            print(f"sent {i + 1}: mean nll {float(sum_log_likelihood) / (i + 1):.3f}")
    return sum_log_likelihood


def make_batches(n=24, seed=0, vocab=30, n_tags=4):
    g = torch.Generator().manual_seed(seed)
    data = []
    for _ in range(n):
        length = 6
        words = torch.randint(0, vocab, (length,), generator=g)
        tags = words % n_tags
        data.append((words, tags))
    return data


def run(batches):
    torch.manual_seed(0)
    model = BiLSTMCRF(vocab_size=30, n_tags=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, weight_decay=1e-4)
    total = train(model, batches, optimizer)
    probe_words, _ = make_batches(n=1, seed=1)[0]
    print("decoded path:", model.viterbi(probe_words))
    return total


if __name__ == "__main__":
    run(make_batches())
