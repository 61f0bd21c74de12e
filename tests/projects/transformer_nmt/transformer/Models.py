# Layout modelled on transformer/Models.py of jadore801120/attention-is-all-you-need-pytorch:
# Transformer(src_seq, trg_seq) returns the flattened word logits; encoder and decoder are exposed
# for the Translator's step-by-step decoding. Reduced: torch.nn's encoder/decoder layers stand in
# for the hand-written EncoderLayer/DecoderLayer, one layer each, d_model 32.
import torch
import torch.nn as nn

from .Constants import PAD


def get_subsequent_mask(seq):
    len_s = seq.size(1)
    return torch.triu(torch.ones(len_s, len_s, dtype=torch.bool), diagonal=1)


class Transformer(nn.Module):
    def __init__(self, n_src_vocab, n_trg_vocab, d_model=32, n_head=2, d_inner=64, n_layers=1, n_position=64):
        super().__init__()
        self.src_word_emb = nn.Embedding(n_src_vocab, d_model, padding_idx=PAD)
        self.trg_word_emb = nn.Embedding(n_trg_vocab, d_model, padding_idx=PAD)
        self.position_enc = nn.Embedding(n_position, d_model)
        enc_layer = nn.TransformerEncoderLayer(d_model, n_head, d_inner, dropout=0.1, batch_first=True)
        dec_layer = nn.TransformerDecoderLayer(d_model, n_head, d_inner, dropout=0.1, batch_first=True)
        self.encoder_stack = nn.TransformerEncoder(enc_layer, n_layers, enable_nested_tensor=False)
        self.decoder_stack = nn.TransformerDecoder(dec_layer, n_layers)
        self.trg_word_prj = nn.Linear(d_model, n_trg_vocab, bias=False)

    def _embed(self, emb, seq):
        pos = torch.arange(seq.size(1)).unsqueeze(0)
        return emb(seq) + self.position_enc(pos)

    def encoder(self, src_seq):
        return self.encoder_stack(self._embed(self.src_word_emb, src_seq), src_key_padding_mask=src_seq.eq(PAD))

    def decoder(self, trg_seq, enc_output, src_seq):
        dec = self._embed(self.trg_word_emb, trg_seq)
        return self.decoder_stack(dec, enc_output, tgt_mask=get_subsequent_mask(trg_seq), memory_key_padding_mask=src_seq.eq(PAD))

    def forward(self, src_seq, trg_seq):
        enc_output = self.encoder(src_seq)
        dec_output = self.decoder(trg_seq, enc_output, src_seq)
        seq_logit = self.trg_word_prj(dec_output)
        return seq_logit.view(-1, seq_logit.size(2))
