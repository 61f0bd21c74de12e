# Source: https://github.com/seoungwugoh/STM/issues/14
# Shape: space-time-memory video segmentation trained on 3-frame clips: each frame's predicted mask is encoded into the memory that the later frames read, and every frame's loss is backwarded as soon as it is computed with retain_graph=True except the last; the later losses go back through the earlier frames' memory encodings, so the retained graphs are needed and freed at the end of the clip.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SpaceTimeMemory(nn.Module):
    def __init__(self, key_encoder: nn.Module, value_encoder: nn.Module, decoder: nn.Module):
        super().__init__()
        self.key_encoder = key_encoder
        self.value_encoder = value_encoder
        self.decoder = decoder

    def memorize(self, frame, mask):
        return self.key_encoder(frame), self.value_encoder(frame, mask)

    def segment(self, frame, memory_keys, memory_values):
        query_key = self.key_encoder(frame)
        keys = torch.cat(memory_keys, dim=2)
        values = torch.cat(memory_values, dim=2)
        affinity = torch.einsum("bck,bcq->bkq", keys.flatten(2), query_key.flatten(2)).softmax(dim=1)
        read = torch.einsum("bck,bkq->bcq", values.flatten(2), affinity).view(values.size(0), -1, *frame.shape[2:])
        return self.decoder(read, frame)


def train_clip(model: SpaceTimeMemory, optimizer, frames, masks):
    optimizer.zero_grad()
    num_frames = frames.size(1)
    key, value = model.memorize(frames[:, 0], masks[:, 0])
    memory_keys, memory_values = [key], [value]
    clip_loss = 0.0
    for t in range(1, num_frames):
        logits = model.segment(frames[:, t], memory_keys, memory_values)
        loss = F.cross_entropy(logits, masks[:, t].argmax(dim=1))
        loss.backward(retain_graph=t < num_frames - 1)
        clip_loss += loss.item()
        if t < num_frames - 1:
            key, value = model.memorize(frames[:, t], F.softmax(logits, dim=1))
            memory_keys.append(key)
            memory_values.append(value)
    optimizer.step()
    return clip_loss / (num_frames - 1)


def train(model, loader, epochs, lr=1e-5):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        for frames, masks in loader:
            loss = train_clip(model, optimizer, frames.cuda(), masks.cuda())
        print(f"epoch {epoch}: last clip loss {loss:.4f}")
