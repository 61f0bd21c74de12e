# Source: https://github.com/EagleW/Writing-editing-Network/issues/3
# Shape: abstract-generation seq2seq calls loss.backward(retain_graph=True) on the only backward of each step; nothing else differentiates the graph, so it survives into the next step and raises the peak by one graph (the maintainers confirmed removing it changes nothing)
# Verdict: leak
import torch
import torch.nn as nn


def train_epoch(encoder, decoder, loader, enc_opt, dec_opt, criterion, pad_idx, clip=5.0):
    encoder.train()
    decoder.train()
    for titles, abstracts in loader:
        enc_opt.zero_grad()
        dec_opt.zero_grad()
        enc_out, enc_hidden = encoder(titles)
        logits = decoder(abstracts[:, :-1], enc_hidden, enc_out)
        loss = criterion(logits.reshape(-1, logits.size(-1)), abstracts[:, 1:].reshape(-1))
        loss.backward(retain_graph=True)  # TLK201
        nn.utils.clip_grad_norm_(encoder.parameters(), clip)
        nn.utils.clip_grad_norm_(decoder.parameters(), clip)
        enc_opt.step()
        dec_opt.step()
