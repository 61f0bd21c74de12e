# Modelled on models/model.py of zhouhaoyi/Informer2020: an encoder over the input window and a
# decoder that reads the label window plus zero padding and emits pred_len steps. Written anew
# and tiny: a GRU encoder (whose final state can be carried from window to window, as stateful
# forecasters do over consecutive windows) and a linear decoder stand in for ProbSparse attention.
import torch
import torch.nn as nn


class Informer(nn.Module):
    def __init__(self, enc_in, dec_in, c_out, seq_len, label_len, out_len, d_model=16):
        super(Informer, self).__init__()
        self.pred_len = out_len
        self.enc_embedding = nn.Linear(enc_in, d_model)
        self.encoder = nn.GRU(d_model, d_model, batch_first=True)
        self.dec_embedding = nn.Linear(dec_in, d_model)
        self.projection = nn.Linear(2 * d_model, c_out)

    def forward(self, x_enc, x_dec, enc_state=None):
        enc_out, enc_state = self.encoder(self.enc_embedding(x_enc), enc_state)
        dec = self.dec_embedding(x_dec)
        ctx = enc_out[:, -1:, :].expand(-1, dec.size(1), -1)
        out = self.projection(torch.cat([dec, ctx], dim=-1))
        return out[:, -self.pred_len:, :], enc_state
