import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers import BOS_ID, PAD_ID


class RecurrentEncoder(nn.Module):
    """GRU encoder with a document-context vector carried from one training batch to the next."""

    def __init__(self, vocab_size, emb_size, hidden_size, doc_momentum=0.5):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.rnn = nn.GRU(emb_size, hidden_size, batch_first=True)
        self.doc_momentum = doc_momentum
        self.doc_state = None

    def forward(self, src):
        emb = self.embed(src)
        output, hidden = self.rnn(emb)
        if self.training:
            summary = emb.mean(dim=(0, 1))
            if self.doc_state is None:
                self.doc_state = summary
            else:
                self.doc_state = self.doc_momentum * self.doc_state + (1 - self.doc_momentum) * summary  # expect: TLK103
        return output, hidden[-1], self.doc_state


class LuongAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.key_layer = nn.Linear(hidden_size, hidden_size, bias=False)

    def forward(self, query, keys):
        scores = torch.bmm(self.key_layer(keys), query.unsqueeze(2)).squeeze(2)
        alphas = scores.softmax(-1)
        return torch.bmm(alphas.unsqueeze(1), keys).squeeze(1), alphas


class RecurrentDecoder(nn.Module):
    def __init__(self, vocab_size, emb_size, hidden_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_size, padding_idx=PAD_ID)
        self.rnn = nn.GRUCell(emb_size, hidden_size)
        self.attention = LuongAttention(hidden_size)
        self.bridge = nn.Linear(hidden_size, hidden_size)
        self.ctx_proj = nn.Linear(emb_size, hidden_size, bias=False)
        self.att_vector_layer = nn.Linear(2 * hidden_size, hidden_size)
        self.output_layer = nn.Linear(hidden_size, vocab_size)
        self.last_attention = None

    def init_hidden(self, encoder_hidden, doc_state):
        h = self.bridge(encoder_hidden)
        if doc_state is not None:
            h = h + self.ctx_proj(doc_state)
        return torch.tanh(h)

    def forward_step(self, prev_tokens, hidden, encoder_output):
        hidden = self.rnn(self.embed(prev_tokens), hidden)
        context, alphas = self.attention(hidden, encoder_output)
        att_vector = torch.tanh(self.att_vector_layer(torch.cat([hidden, context], dim=-1)))
        return self.output_layer(att_vector), hidden, alphas

    def forward(self, trg_input, encoder_output, encoder_hidden, doc_state):
        hidden = self.init_hidden(encoder_hidden, doc_state)
        outputs, alphas = [], []
        for t in range(trg_input.size(1)):
            logits, hidden, att = self.forward_step(trg_input[:, t], hidden, encoder_output)
            outputs.append(logits)
            alphas.append(att)
        self.last_attention = torch.stack(alphas, dim=1)
        return torch.stack(outputs, dim=1)


class Model(nn.Module):
    def __init__(self, src_vocab, trg_vocab, emb_size=16, hidden_size=32):
        super().__init__()
        self.encoder = RecurrentEncoder(src_vocab, emb_size, hidden_size)
        self.decoder = RecurrentDecoder(trg_vocab, emb_size, hidden_size)
        self.bos_index = BOS_ID

    def encode(self, src):
        return self.encoder(src)

    def forward(self, src, trg_input):
        encoder_output, encoder_hidden, doc_state = self.encode(src)
        logits = self.decoder(trg_input, encoder_output, encoder_hidden, doc_state)
        return F.log_softmax(logits, dim=-1)
