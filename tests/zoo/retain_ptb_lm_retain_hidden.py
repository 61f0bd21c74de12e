# Source: https://github.com/deeplearningathome/pytorch-language-model/blob/master/ptb-lm.py
# Shape: repackage_hidden was dropped, so the LSTM state carried from one BPTT window to the next keeps the whole history attached; the "backward through the graph a second time" error this causes was silenced with retain_graph=True, so every window's graph is kept and re-traversed and memory grows with each step.
# Verdict: leak
import torch
import torch.nn as nn


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class LM_LSTM(nn.Module):
    """Simple LSTM-based language model"""

    def __init__(self, embedding_dim, num_steps, batch_size, vocab_size, num_layers, dp_keep_prob):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.num_steps = num_steps
        self.batch_size = batch_size
        self.vocab_size = vocab_size
        self.dp_keep_prob = dp_keep_prob
        self.num_layers = num_layers
        self.dropout = nn.Dropout(1 - dp_keep_prob)
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(input_size=embedding_dim, hidden_size=embedding_dim,
                            num_layers=num_layers, dropout=1 - dp_keep_prob)
        self.sm_fc = nn.Linear(in_features=embedding_dim, out_features=vocab_size)
        self.init_weights()

    def init_weights(self):
        init_range = 0.1
        self.word_embeddings.weight.data.uniform_(-init_range, init_range)
        self.sm_fc.bias.data.fill_(0.0)
        self.sm_fc.weight.data.uniform_(-init_range, init_range)

    def init_hidden(self):
        weight = next(self.parameters()).data
        return (weight.new_zeros(self.num_layers, self.batch_size, self.embedding_dim),
                weight.new_zeros(self.num_layers, self.batch_size, self.embedding_dim))

    def forward(self, inputs, hidden):
        embeds = self.dropout(self.word_embeddings(inputs))
        lstm_out, hidden = self.lstm(embeds, hidden)
        lstm_out = self.dropout(lstm_out)
        logits = self.sm_fc(lstm_out.view(-1, self.embedding_dim))
        return logits.view(self.num_steps, self.batch_size, self.vocab_size), hidden


VOCAB = 30
BATCH = 4
NUM_STEPS = 6

criterion = nn.CrossEntropyLoss()


def make_batches(n):
    """Consecutive (x, y) windows of one long token stream, like reader.ptb_iterator."""
    g = torch.Generator().manual_seed(8)
    length = n * NUM_STEPS + 1
    start = torch.randint(0, VOCAB, (BATCH, 1), generator=g)
    stream = (start + 3 * torch.arange(length)) % VOCAB  # a learnable "grammar"
    noise = torch.rand(BATCH, length, generator=g) < 0.2
    stream = torch.where(noise, torch.randint(0, VOCAB, (BATCH, length), generator=g), stream)
    return [(stream[:, i * NUM_STEPS:(i + 1) * NUM_STEPS], stream[:, i * NUM_STEPS + 1:(i + 1) * NUM_STEPS + 1])
            for i in range(n)]


def run_epoch(model, data, is_train=False, lr=1.0, probe=None):
    """Runs the model on the given data."""
    if is_train:
        model.train()
    else:
        model.eval()
    hidden = model.init_hidden()
    costs = 0.0
    iters = 0
    for step, (x, y) in enumerate(data):
        inputs = x.transpose(0, 1).contiguous()
        model.zero_grad()
        outputs, hidden = model(inputs, hidden)
        targets = y.transpose(0, 1).contiguous()
        tt = torch.squeeze(targets.view(-1, model.batch_size * model.num_steps))

        loss = criterion(outputs.view(-1, model.vocab_size), tt)
        costs += loss.item() * model.num_steps
        iters += model.num_steps

        if is_train:
            loss.backward(retain_graph=True)  # TLK202
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad.data, alpha=-lr)
        if probe is not None:
            probe()
    return torch.exp(torch.tensor(costs / iters)).item()


def run(batches, probe=None):
    torch.manual_seed(0)
    model = LM_LSTM(embedding_dim=32, num_steps=NUM_STEPS, batch_size=BATCH,
                    vocab_size=VOCAB, num_layers=2, dp_keep_prob=0.65)
    train_ppl = run_epoch(model, batches, is_train=True, lr=1.0, probe=probe)
    return {"train_perplexity": train_ppl}


if __name__ == "__main__":
    print(run(make_batches(5)))
