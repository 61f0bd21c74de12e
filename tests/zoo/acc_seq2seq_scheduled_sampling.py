# Source: https://github.com/bentrevett/pytorch-seq2seq/blob/master/1%20-%20Sequence%20to%20Sequence%20Learning%20with%20Neural%20Networks.ipynb
# Shape: train() adds the attached loss of every batch to epoch_loss (the tutorial's `.item()` was dropped), so the running epoch total keeps each batch's encoder/decoder unroll graph, including the sampled-token decoding steps, alive for the whole epoch.
# Verdict: leak
import torch
import torch.nn as nn

SRC_VOCAB = 20
TRG_VOCAB = 22
SRC_LEN = 7
TRG_LEN = 8
BATCH = 6


class Encoder(nn.Module):
    def __init__(self, input_dim, emb_dim, hid_dim, n_layers, dropout):
        super().__init__()
        self.embedding = nn.Embedding(input_dim, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hid_dim, n_layers, dropout=dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src):
        embedded = self.dropout(self.embedding(src))
        outputs, (hidden, cell) = self.rnn(embedded)
        return hidden, cell


class Decoder(nn.Module):
    def __init__(self, output_dim, emb_dim, hid_dim, n_layers, dropout):
        super().__init__()
        self.output_dim = output_dim
        self.embedding = nn.Embedding(output_dim, emb_dim)
        self.rnn = nn.LSTM(emb_dim, hid_dim, n_layers, dropout=dropout)
        self.fc_out = nn.Linear(hid_dim, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, input, hidden, cell):
        input = input.unsqueeze(0)
        embedded = self.dropout(self.embedding(input))
        output, (hidden, cell) = self.rnn(embedded, (hidden, cell))
        prediction = self.fc_out(output.squeeze(0))
        return prediction, hidden, cell


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, src, trg, teacher_force_flags):
        trg_len, batch_size = trg.shape
        outputs = torch.zeros(trg_len, batch_size, self.decoder.output_dim)
        hidden, cell = self.encoder(src)
        input = trg[0, :]
        for t in range(1, trg_len):
            output, hidden, cell = self.decoder(input, hidden, cell)
            outputs[t] = output
            top1 = output.argmax(1)
            # scheduled sampling: feed ground truth or the model's own prediction
            input = trg[t] if teacher_force_flags[t] else top1
        return outputs


def make_batches(n):
    g = torch.Generator().manual_seed(3)
    batches = []
    for _ in range(n):
        src = torch.randint(2, SRC_VOCAB, (SRC_LEN, BATCH), generator=g)
        trg = torch.cat([torch.ones(1, BATCH, dtype=torch.long),
                         (src[:TRG_LEN - 1] + 1) % TRG_VOCAB], 0)
        teacher_force = torch.rand(TRG_LEN, generator=g) < 0.5
        batches.append({"src": src, "trg": trg, "teacher_force": teacher_force.tolist()})
    return batches


def train(model, iterator, optimizer, criterion, clip, probe=None):
    model.train()
    epoch_loss = 0
    for i, batch in enumerate(iterator):
        src = batch["src"]
        trg = batch["trg"]
        optimizer.zero_grad()
        output = model(src, trg, batch["teacher_force"])
        output_dim = output.shape[-1]
        output = output[1:].view(-1, output_dim)
        trg = trg[1:].view(-1)
        loss = criterion(output, trg)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        epoch_loss += loss  # TLK101
        if probe is not None:
            probe()
    return epoch_loss / len(iterator)


def run(batches, probe=None):
    torch.manual_seed(0)
    enc = Encoder(SRC_VOCAB, 16, 32, 2, 0.1)
    dec = Decoder(TRG_VOCAB, 16, 32, 2, 0.1)
    model = Seq2Seq(enc, dec)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss(ignore_index=0)
    train_loss = train(model, batches, optimizer, criterion, clip=1.0, probe=probe)
    return {"train_loss": float(train_loss)}


if __name__ == "__main__":
    print(run(make_batches(5)))
