# Source: https://github.com/facebookresearch/encodec/issues/19
# Shape: a streaming round trip through a neural audio codec, frame by frame in a while loop over sample offsets, without torch.no_grad(); each decoded frame is appended to a list with its graph, so memory grows with the length of the audio until the process is killed.
# Verdict: leak
import torch
import torch.nn as nn


class StreamingCodec(nn.Module):
    def __init__(self, channels=1, dim=128, codebook_size=1024):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv1d(channels, dim, 7, padding=3), nn.ELU(), nn.Conv1d(dim, dim, 4, stride=4))
        self.codebook = nn.Embedding(codebook_size, dim)
        self.decoder = nn.Sequential(nn.ConvTranspose1d(dim, dim, 4, stride=4), nn.ELU(),
                                     nn.Conv1d(dim, channels, 7, padding=3))

    def encode_frame(self, wav):
        emb = self.encoder(wav).transpose(1, 2)
        distances = torch.cdist(emb, self.codebook.weight.unsqueeze(0))
        return distances.argmin(-1)

    def decode_frame(self, codes):
        return self.decoder(self.codebook(codes).transpose(1, 2))


def roundtrip(codec, wav, frame=480):
    codec.eval()
    frames = []
    offset = 0
    while offset < wav.shape[-1]:
        codes = codec.encode_frame(wav[:, :, offset:offset + frame])
        frames.append(codec.decode_frame(codes))  # TLK102
        offset += frame
    return torch.cat(frames, dim=2)
