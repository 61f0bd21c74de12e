# Source: https://github.com/pytorch/pytorch/issues/1840
# Shape: the BiLSTM-CRF trainer with the fix suggested in the report: each sentence's negative log-likelihood is backwarded and its .data (a tensor cut from the graph) is what the epoch sum collects; the CRF forward algorithm still carries forward_var across the tags of one sentence, which is the forward pass itself.
# Verdict: clean
import torch
import torch.nn as nn

START_TAG, STOP_TAG = 3, 4


def log_sum_exp(vec):
    max_score = vec.max(dim=1, keepdim=True).values
    return (max_score + torch.log(torch.sum(torch.exp(vec - max_score), dim=1, keepdim=True))).squeeze(1)


class BiLSTM_CRF(nn.Module):
    def __init__(self, vocab_size, tagset_size=5, embedding_dim=8, hidden_dim=8):
        super().__init__()
        self.tagset_size = tagset_size
        self.word_embeds = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, bidirectional=True)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)
        self.transitions = nn.Parameter(torch.randn(tagset_size, tagset_size))

    def _get_lstm_features(self, sentence):
        embeds = self.word_embeds(sentence).view(len(sentence), 1, -1)
        lstm_out, _ = self.lstm(embeds)
        return self.hidden2tag(lstm_out.view(len(sentence), -1))

    def _forward_alg(self, feats):
        forward_var = torch.full((1, self.tagset_size), -10000.0)
        forward_var[0][START_TAG] = 0.0
        for feat in feats:
            next_tag_var = forward_var + self.transitions + feat.view(-1, 1)
            forward_var = log_sum_exp(next_tag_var).view(1, -1)
        terminal_var = forward_var + self.transitions[STOP_TAG]
        return log_sum_exp(terminal_var)[0]

    def _score_sentence(self, feats, tags):
        score = torch.zeros(1)
        tags = torch.cat([torch.tensor([START_TAG], dtype=torch.long), tags])
        for i, feat in enumerate(feats):
            score = score + self.transitions[tags[i + 1], tags[i]] + feat[tags[i + 1]]
        return (score + self.transitions[STOP_TAG, tags[-1]])[0]

    def neg_log_likelihood(self, sentence, tags):
        feats = self._get_lstm_features(sentence)
        return self._forward_alg(feats) - self._score_sentence(feats, tags)


def train(model, training_data, epochs=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, weight_decay=1e-4)
    for epoch in range(epochs):
        sum_log_likelihood = 0
        for sentence_in, targets in training_data:
            model.zero_grad()
            neg_log_likelihood = model.neg_log_likelihood(sentence_in, targets)
            neg_log_likelihood.backward()
            optimizer.step()
            sum_log_likelihood += neg_log_likelihood.data
        print("epoch", epoch, "loss", float(sum_log_likelihood) / len(training_data))


if __name__ == "__main__":
    data = [(torch.randint(0, 20, (6,)), torch.randint(0, 3, (6,))) for _ in range(5)]
    train(BiLSTM_CRF(vocab_size=20), data)
