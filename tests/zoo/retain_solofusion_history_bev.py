# Source: https://github.com/Divadi/SOLOFusion/issues/22
# Shape: The temporal fusion module keeps the previous frames' BEV features in self.history_bev without detaching them; the next frame's loss then reaches back into the previous frame's graph, the "backward through the graph a second time" error is silenced with retain_graph=True, and the graph of every frame of the sequence stays alive and is walked again by every backward.
# Verdict: leak
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class DetectorConfig:
    img_channels: int = 3
    bev_channels: int = 16
    bev_size: int = 8
    history_frames: int = 2
    num_classes: int = 3
    aux_depth_weight: float = 0.5
    lr: float = 2e-4
    scene_length: int = 32
    frames_per_clip: int = 32   # gradients are accumulated over one temporal clip (= one scene)
    val_interval: int = 100


def make_batches(n_frames=32, cfg=DetectorConfig(), seed=0):
    """A single driving sequence: consecutive frames share a scene id, targets are heatmaps."""
    g = torch.Generator().manual_seed(seed)
    frames = []
    for i in range(n_frames):
        img = torch.randn(2, cfg.img_channels, 16, 16, generator=g)
        heat = torch.rand(2, cfg.num_classes, cfg.bev_size, cfg.bev_size, generator=g)
        depth = torch.rand(2, 1, 16, 16, generator=g)
        frames.append({"img": img, "heatmap": heat, "depth": depth,
                       "scene_id": i // cfg.scene_length, "ego_shift": i % 2})
    return frames


class ImageEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(cfg.img_channels, 16, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.depth_head = nn.Conv2d(16, 1, 1)
        self.to_bev = nn.Conv2d(16, cfg.bev_channels, 2, stride=2)

    def forward(self, img):
        feat = self.backbone(img)
        return self.to_bev(feat), self.depth_head(feat)


class TemporalBEVFusion(nn.Module):
    """Sliding window of past BEV features, aligned to the current frame and fused by a conv."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        c = cfg.bev_channels
        self.fuse = nn.Sequential(nn.Conv2d(c * (cfg.history_frames + 1), c, 3, padding=1), nn.ReLU())
        self.history_bev = None
        self.history_scene_id = None

    def align(self, history, ego_shift):
        # stand-in for the ego-motion grid_sample: shift by one BEV cell on odd frames
        return torch.roll(history, shifts=ego_shift, dims=-1) if ego_shift else history

    def forward(self, curr_bev, scene_id, ego_shift):
        start_of_sequence = self.history_bev is None or scene_id != self.history_scene_id
        if start_of_sequence:
            history = curr_bev.repeat(1, self.cfg.history_frames, 1, 1)
        else:
            history = self.align(self.history_bev, ego_shift)
        fused = self.fuse(torch.cat([curr_bev, history], dim=1))
        c = self.cfg.bev_channels
        self.history_bev = torch.cat([curr_bev, history[:, :-c]], dim=1)
        self.history_scene_id = scene_id
        return fused


class BEVDetector(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = ImageEncoder(cfg)
        self.temporal = TemporalBEVFusion(cfg)
        self.head = nn.Conv2d(cfg.bev_channels, cfg.num_classes, 1)

    def forward(self, frame):
        bev, depth = self.encoder(frame["img"])
        fused = self.temporal(bev, frame["scene_id"], frame["ego_shift"])
        return self.head(fused), depth


def losses(preds, frame):
    heat_pred, depth_pred = preds
    return {
        "det": F.binary_cross_entropy_with_logits(heat_pred, frame["heatmap"]),
        "depth": F.l1_loss(depth_pred, frame["depth"]),
    }


class Runner:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = BEVDetector(cfg)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.log_buffer = {"det": [], "depth": []}
        self.iter = 0

    def train_iter(self, frame, last=False):
        self.model.train()
        if self.iter % self.cfg.frames_per_clip == 0:
            self.optimizer.zero_grad()
        loss_dict = losses(self.model(frame), frame)
        # depth supervision is backpropagated first and shares the encoder graph with the detection loss
        (self.cfg.aux_depth_weight * loss_dict["depth"]).backward(retain_graph=True)
        loss_dict["det"].backward(retain_graph=True)  # TLK202
        self.iter += 1
        if self.iter % self.cfg.frames_per_clip == 0 or last:
            self.optimizer.step()
        for k, v in loss_dict.items():
            self.log_buffer[k].append(v.item())

    @torch.no_grad()
    def val_iter(self, frame):
        self.model.eval()
        return losses(self.model(frame), frame)["det"].item()


def run(steps):
    torch.manual_seed(0)
    cfg = DetectorConfig()
    frames = make_batches(cfg.scene_length, cfg, seed=0)
    val_frames = make_batches(4, cfg, seed=1)
    runner = Runner(cfg)
    for it in range(steps):
        frame = dict(frames[it % len(frames)], scene_id=it // cfg.scene_length)
        runner.train_iter(frame, last=(it == steps - 1))
        if (it + 1) % cfg.val_interval == 0:
            runner.log_buffer.setdefault("val_det", []).append(
                sum(runner.val_iter(f) for f in val_frames) / len(val_frames))
    return {"runner": runner}


if __name__ == "__main__":
    run(10)
