# Source: https://github.com/isds-neu/PeRCNN/issues/3
# Shape: recurrent physics model rolled forward segment by segment; the state is carried undetached across segments, every segment loss is backwarded with retain_graph=True and the optimizer steps once per epoch, so each backward walks and keeps all earlier segments (measured: +655 KB per segment and growing step time)
# Verdict: leak
import torch
import torch.nn.functional as F


def train(model, initial_state, segments, optimizer, epochs=500):
    for epoch in range(epochs):
        state = initial_state
        optimizer.zero_grad()
        for forcing, observed in segments:
            predicted, state = model(forcing, state)
            loss = F.mse_loss(predicted, observed)
            loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
