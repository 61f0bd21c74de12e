# Source: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
# Shape: language model that now detaches its hidden state at every batch but kept retain_graph=True from the days it did not; nothing carries the graph any more and no second backward follows, so the flag only keeps one graph alive into the next batch (a peak, not TLK202)
# Verdict: leak
import torch
import torch.nn as nn

criterion = nn.CrossEntropyLoss()
hidden = model.init_hidden(batch_size)
for epoch in range(epochs):
    for i, (inputs, targets) in enumerate(train_batches):
        hidden = tuple(h.detach() for h in hidden)
        optimizer.zero_grad()
        logits, hidden = model(inputs, hidden)
        loss = criterion(logits.view(-1, ntokens), targets.view(-1))
        loss.backward(retain_graph=True)  # TLK201
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
