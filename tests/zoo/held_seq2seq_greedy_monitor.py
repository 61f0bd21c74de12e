# Source: https://github.com/mapillary/inplace_abn/issues/79
# Shape: after each scheduled-sampling training step the trainer greedy-decodes a fixed monitor sentence with grad enabled and keeps the summed token scores (attached to the whole unrolled encoder/decoder graph) in self.samples.
# Verdict: leak
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

SOS_token, EOS_token = 0, 1
VOCAB = list("__abcdefghijklmn")


class EncoderRNN(nn.Module):
    def __init__(self, hidden_size, embedding):
        super().__init__()
        self.embedding = embedding
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=False)

    def forward(self, input_seq, hidden=None):
        outputs, hidden = self.gru(self.embedding(input_seq), hidden)
        return outputs, hidden


class DecoderRNN(nn.Module):
    def __init__(self, embedding, hidden_size, output_size):
        super().__init__()
        self.embedding = embedding
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.attn = nn.Linear(hidden_size * 2, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input_step, last_hidden, encoder_outputs):
        embedded = self.embedding(input_step)
        rnn_output, hidden = self.gru(embedded, last_hidden)
        weights = F.softmax((rnn_output * encoder_outputs).sum(dim=2), dim=0)
        context = (weights.unsqueeze(2) * encoder_outputs).sum(dim=0, keepdim=True)
        concat = torch.tanh(self.attn(torch.cat([rnn_output, context], dim=2)))
        return F.log_softmax(self.out(concat.squeeze(0)), dim=1), hidden


class GreedySearchDecoder(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, input_seq, max_length):
        encoder_outputs, encoder_hidden = self.encoder(input_seq)
        decoder_hidden = encoder_hidden
        decoder_input = torch.full((1, 1), SOS_token, dtype=torch.long)
        all_tokens = torch.zeros([0], dtype=torch.long)
        all_scores = torch.zeros([0])
        for _ in range(max_length):
            decoder_output, decoder_hidden = self.decoder(decoder_input, decoder_hidden, encoder_outputs)
            decoder_scores, decoder_input = torch.max(decoder_output, dim=1)
            all_tokens = torch.cat((all_tokens, decoder_input), dim=0)
            all_scores = torch.cat((all_scores, decoder_scores), dim=0)
            decoder_input = torch.unsqueeze(decoder_input, 0)
        return all_tokens, all_scores


class Seq2SeqTrainer:
    def __init__(self, hidden_size=48, seq_len=8, lr=1e-3):
        self.embedding = nn.Embedding(len(VOCAB), hidden_size)
        self.encoder = EncoderRNN(hidden_size, self.embedding)
        self.decoder = DecoderRNN(self.embedding, hidden_size, len(VOCAB))
        self.encoder_optimizer = torch.optim.Adam(self.encoder.parameters(), lr=lr)
        self.decoder_optimizer = torch.optim.Adam(self.decoder.parameters(), lr=lr)
        self.searcher = GreedySearchDecoder(self.encoder, self.decoder)
        self.seq_len = seq_len
        self.teacher_forcing_ratio = 1.0
        self.samples = []

    def train_step(self, input_variable, target_variable):
        self.encoder_optimizer.zero_grad()
        self.decoder_optimizer.zero_grad()
        encoder_outputs, encoder_hidden = self.encoder(input_variable)
        decoder_input = torch.full((1, input_variable.size(1)), SOS_token, dtype=torch.long)
        decoder_hidden = encoder_hidden
        use_teacher_forcing = random.random() < self.teacher_forcing_ratio
        loss = 0
        for t in range(target_variable.size(0)):
            decoder_output, decoder_hidden = self.decoder(decoder_input, decoder_hidden, encoder_outputs)
            loss = loss + F.nll_loss(decoder_output, target_variable[t])
            if use_teacher_forcing:
                decoder_input = target_variable[t].view(1, -1)
            else:
                decoder_input = decoder_output.argmax(dim=1).view(1, -1)
        loss.backward()
        nn.utils.clip_grad_norm_(self.encoder.parameters(), 50.0)
        nn.utils.clip_grad_norm_(self.decoder.parameters(), 50.0)
        self.encoder_optimizer.step()
        self.decoder_optimizer.step()
        self.teacher_forcing_ratio = max(0.5, self.teacher_forcing_ratio * 0.98)   # scheduled sampling
        return loss.item() / target_variable.size(0)

    def monitor(self, it, monitor_seq):
        self.encoder.eval()
        self.decoder.eval()
        tokens, scores = self.searcher(monitor_seq, self.seq_len)
        text = "".join(VOCAB[t] for t in tokens.tolist())
        self.samples.append((it, text, scores.sum()))  # TLK102
        self.encoder.train()
        self.decoder.train()


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 256, (16,)).tolist() for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    random.seed(1)
    seq_len = 8
    corpus = torch.randint(2, len(VOCAB), (256, seq_len))
    trainer = Seq2SeqTrainer(seq_len=seq_len)
    monitor_seq = corpus[:1].t().contiguous()
    for it, idx in enumerate(batches):
        src = corpus[idx].t().contiguous()
        tgt = src.flip(0)                      # learn to reverse the sequence
        trainer.train_step(src, tgt)
        trainer.monitor(it, monitor_seq)
    return [(it, text) for it, text, _ in trainer.samples[-2:]]
