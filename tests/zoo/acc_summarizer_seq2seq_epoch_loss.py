# Source: https://github.com/JulesBelveze/text-summarizer/pull/7
# Shape: train_epoch() adds each attached batch loss to epoch_loss_train (`epoch_loss_train += batch_loss_train`), so the whole epoch's seq2seq graphs (encoder, attention decoder, teacher-forcing loop) stay chained to the epoch total.
# Verdict: leak
import random

import torch
import torch.nn as nn

voc_size, hidden_dim, batch_size, MAX_LEN_HIGHLIGHT = 50, 32, 4, 6


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(num_embeddings=voc_size, embedding_dim=hidden_dim)
        self.lstm = nn.LSTM(input_size=hidden_dim, hidden_size=hidden_dim, num_layers=1, batch_first=True)

    def forward(self, input):
        embedded = self.embeddings(input)
        output, (hidden, cell) = self.lstm(embedded)
        return output, (hidden, cell)


class AttnDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(num_embeddings=voc_size, embedding_dim=hidden_dim)
        self.lstm = nn.LSTM(input_size=hidden_dim, hidden_size=hidden_dim, num_layers=1, batch_first=True)
        # attention layer (we use the definition in the paper hence tanh)
        self.W = nn.Sequential(nn.Linear(hidden_dim * 2, 1), nn.Tanh())
        self.dropout = nn.Dropout(.1)
        self.fc = nn.Linear(in_features=hidden_dim * 2, out_features=voc_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, decoder_hidden, cell, encoder_outputs):
        (b, t_k, n) = encoder_outputs.shape
        embedded = self.embeddings(input.view(b, -1))
        embedded = self.dropout(embedded)
        _, (decoder_hidden, cell) = self.lstm(embedded, (decoder_hidden, cell))

        decoder_hidden_expanded = decoder_hidden.permute(1, 0, 2).expand(b, t_k, n).contiguous()
        att_features = torch.cat((decoder_hidden_expanded, encoder_outputs), 2)
        e_t = self.W(att_features).squeeze(2)
        a_t = self.softmax(e_t)
        a_applied = torch.bmm(a_t.unsqueeze(1), encoder_outputs).squeeze(1)
        s_t_h_t = torch.cat((decoder_hidden.squeeze(0), a_applied), 1)
        output = self.softmax(self.fc(s_t_h_t))
        return output, (decoder_hidden, cell)


class Seq2seqAttention(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, input, target):
        encoder_output, (encoder_hidden, encoder_cell) = self.encoder(input)
        decoder_input = torch.tensor([2] * input.size(0), dtype=torch.long)
        decoder_hidden, decoder_cell = encoder_hidden, encoder_cell

        batch_output = torch.Tensor()
        for i in range(MAX_LEN_HIGHLIGHT):
            decoder_output, (decoder_hidden, decoder_cell) = self.decoder(
                decoder_input, decoder_hidden, decoder_cell, encoder_output)
            batch_output = torch.cat((batch_output, decoder_output.unsqueeze(1)), 1)
            # using teacher forcing
            if random.uniform(0, 1) > .5:
                decoder_input = target[:, i]
            else:
                decoder_input = decoder_output.argmax(dim=1)
        return batch_output


def train_epoch(train_iter, criterion, model, optimizer):
    epoch_loss_train, epoch_acc_train = 0, 0
    model.train()
    for i, batch in enumerate(train_iter):
        batch_loss_train, batch_acc_train = 0, 0
        optimizer.zero_grad()

        story, highlight = batch
        output = model(story, highlight)
        for predicted, target in zip(output, highlight):
            batch_loss_train += criterion(predicted, target)
            batch_acc_train += (target == predicted.argmax(dim=1)).sum().item() / MAX_LEN_HIGHLIGHT

        # propagating loss
        batch_loss_train.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
        epoch_loss_train += batch_loss_train  # TLK101
        optimizer.step()

        batch_acc_train /= batch_size
        epoch_acc_train += batch_acc_train
    return epoch_loss_train / len(train_iter), epoch_acc_train / len(train_iter)


def make_batches(n, story_len=10):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(3, voc_size, (batch_size, story_len), generator=g),
             torch.randint(3, voc_size, (batch_size, MAX_LEN_HIGHLIGHT), generator=g)) for _ in range(n)]


def run(steps):
    random.seed(0)
    torch.manual_seed(0)
    model = Seq2seqAttention(Encoder(), AttnDecoder())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.NLLLoss()
    epoch_loss, epoch_acc = train_epoch(make_batches(steps), criterion, model, optimizer)
    return {"model": model, "train_loss": epoch_loss, "train_acc": epoch_acc}
