# Source: https://www.codegenes.net/blog/detach-lstm-pytorch
# Shape: a stateful character LSTM keeps its (h, c) tuple from one batch to the next so context flows across chunks, but never detaches it; the second loss.backward() walks into the first batch's freed graph and raises
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

vocab, embed_dim, hidden_dim, batch = 96, 64, 256, 16

embedding = nn.Embedding(vocab, embed_dim)
lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=2, batch_first=True)
decoder = nn.Linear(hidden_dim, vocab)
params = list(embedding.parameters()) + list(lstm.parameters()) + list(decoder.parameters())
opt = torch.optim.Adam(params, lr=3e-4)

h0 = torch.zeros(2, batch, hidden_dim)
c0 = torch.zeros(2, batch, hidden_dim)
carry = (h0, c0)

for epoch in range(10):
    for chunk, next_chars in chunk_loader:
        emb = embedding(chunk)
        out, (h, c) = lstm(emb, carry)
        carry = (h, c)  # TLK103
        logits = decoder(out)
        loss = F.cross_entropy(logits.reshape(-1, vocab), next_chars.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
