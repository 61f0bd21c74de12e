# Source: https://github.com/pytorch/pytorch/issues/1887
# Shape: the online GRU encoder run the way the report was told to: the whole stream loop sits under torch.inference_mode(), so the hidden state fed back into each call carries no history and memory stays flat however long the stream runs.
# Verdict: clean
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
    with torch.inference_mode():
        for num, chunk in enumerate(stream):
            logits, hidden = encoder(chunk, hidden)
            prob, label = logits.softmax(-1).max(-1)
            if prob.item() > threshold:
                detections.append((num, label.item()))
    return detections


if __name__ == "__main__":
    run_stream(StreamEncoder(), fake_stream(8))
