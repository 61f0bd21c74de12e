# Source: https://github.com/pytorch/pytorch/issues/1887
# Shape: an online GRU encoder consumes an unbounded stream chunk by chunk and feeds its hidden state back into the next call; nothing ever turns grad off or detaches the state, so each chunk's graph hangs off the previous one and memory grows for as long as the stream runs (the report's OOM).
# Verdict: leak
import torch
import torch.nn as nn


class StreamEncoder(nn.Module):
    def __init__(self, n_feats=40, hidden=64, n_classes=12):
        super().__init__()
        self.gru = nn.GRU(n_feats, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, chunk, hidden=None):
        out, hidden = self.gru(chunk, hidden)
        return self.classifier(out[:, -1]), hidden


def fake_stream(n_chunks, chunk_len=20, n_feats=40):
    for _ in range(n_chunks):
        yield torch.randn(1, chunk_len, n_feats)


def run_stream(encoder, stream, threshold=0.9):
    encoder.eval()
    hidden = torch.zeros(1, 1, encoder.gru.hidden_size)
    detections = []
    for num, chunk in enumerate(stream):
        logits, hidden = encoder(chunk, hidden)  # TLK103
        prob, label = logits.softmax(-1).max(-1)
        if prob.item() > threshold:
            detections.append((num, label.item()))
    return detections


if __name__ == "__main__":
    run_stream(StreamEncoder(), fake_stream(8))
