# Source: https://github.com/OpenNMT/OpenNMT-py/issues/1148
# Shape: a seq2seq trainer with truncated BPTT splits each long target into windows and backwards every window; the decoder's recurrent state lives in a DecoderState object that is handed from one window to the next, but the trainer never calls its detach(), so the second window's backward runs into the first window's freed graph and raises "Trying to backward through the graph a second time".
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class DecoderState:
    def __init__(self, hidden):
        self.hidden = hidden

    def detach(self):
        self.hidden = tuple(h.detach() for h in self.hidden)


class Seq2Seq(nn.Module):
    def __init__(self, vocab=40, emb=32, hidden=64):
        super().__init__()
        self.src_emb = nn.Embedding(vocab, emb)
        self.tgt_emb = nn.Embedding(vocab, emb)
        self.encoder = nn.LSTM(emb, hidden)
        self.decoder = nn.LSTM(emb, hidden)
        self.generator = nn.Linear(hidden, vocab)

    def forward(self, src, tgt, dec_state=None):
        _, enc_final = self.encoder(self.src_emb(src))
        if dec_state is None:
            dec_state = DecoderState(enc_final)
        dec_out, hidden = self.decoder(self.tgt_emb(tgt), dec_state.hidden)
        dec_state.hidden = hidden
        return self.generator(dec_out), dec_state


class Trainer:
    def __init__(self, model, trunc_size=8, lr=1e-3, max_grad_norm=5.0):
        self.model = model
        self.trunc_size = trunc_size
        self.max_grad_norm = max_grad_norm
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)

    def train_epoch(self, batches):
        total_loss, total_tokens = 0.0, 0
        for src, tgt_outer in batches:
            dec_state = None
            target_size = tgt_outer.size(0)
            self.optim.zero_grad()
            for j in range(0, target_size - 1, self.trunc_size):
                tgt = tgt_outer[j: j + self.trunc_size]
                gold = tgt_outer[j + 1: j + 1 + self.trunc_size]
                tgt = tgt[: gold.size(0)]
                logits, dec_state = self.model(src, tgt, dec_state)  # TLK103
                loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), gold.reshape(-1), reduction="sum")
                (loss / gold.numel()).backward()
                total_loss += loss.item()
                total_tokens += gold.numel()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
            self.optim.step()
        return total_loss / max(total_tokens, 1)
