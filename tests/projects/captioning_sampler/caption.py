import torch

from models import BeamDecoder, CaptionDecoder


def caption(features, vocab_size):
    decoder = CaptionDecoder(64, 128, vocab_size)
    decoder = decoder.to("cpu")
    decoder.eval()
    ids = decoder.greedy(features)
    return ids[0].tolist()


def caption_quietly(features, vocab_size):
    beam = BeamDecoder(64, 128, vocab_size).eval()
    with torch.no_grad():
        ids = beam.greedy(features)
    return ids[0].tolist()
