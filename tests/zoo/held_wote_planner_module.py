# Source: https://github.com/liyingyanUCAS/WoTE/issues/4
# Shape: The overridden LightningModule.backward() calls loss.backward(retain_graph=True) although nothing backwards the graph again, so every step's BEV/world-model activations stay allocated for as long as the loss is referenced; the hand-rolled on_epoch logger keeps every raw loss tensor until epoch end, so those retained graphs pile up step after step.
# Verdict: leak
"""World-model trajectory evaluator (WoTE-style) trained through an
AgentLightningModule: BEV encoder, fixed trajectory anchors with offset regression,
imitation/simulation reward heads and a small future-BEV world model, loss dict
summed in _step().  A minimal LightningModule/Trainer stand-in (self.log with
on_step/on_epoch aggregation, automatic optimisation through module.backward())
replaces pytorch_lightning.  Synthetic BEV rasters on CPU."""
from typing import Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


class LightningModule(nn.Module):
    """Stand-in for pl.LightningModule: on_step values are printed as floats,
    on_epoch values are buffered and averaged in epoch_end()."""

    def __init__(self):
        super().__init__()
        self._step_values: Dict[str, float] = {}
        self._epoch_values: Dict[str, list] = {}
        self.epoch_metrics: Dict[str, float] = {}

    def log(self, name, value, on_step=True, on_epoch=True, prog_bar=False, sync_dist=False):
        if on_step:
            self._step_values[name] = float(value)
        if on_epoch:
            self._epoch_values.setdefault(name, []).append(value)  # TLK102

    def epoch_end(self):
        for name, values in self._epoch_values.items():
            self.epoch_metrics[name] = float(torch.stack([torch.as_tensor(v) for v in values]).mean())
        self._epoch_values = {}

    def backward(self, loss):
        loss.backward()


class WoTEConfig:
    num_anchors = 8
    horizon = 4
    bev_size = 16
    num_classes = 3
    traj_offset_loss_weight = 1.0
    offset_im_reward_weight = 0.5
    fut_bev_semantic_weight = 0.2
    lr = 1e-3


class WoTEModel(nn.Module):
    def __init__(self, config: WoTEConfig):
        super().__init__()
        self.config = config
        c = 16
        self.bev_encoder = nn.Sequential(nn.Conv2d(config.num_classes, c, 3, padding=1), nn.ReLU(),
                                         nn.Conv2d(c, c, 3, stride=2, padding=1), nn.ReLU())
        anchors = torch.linspace(-1, 1, config.num_anchors).view(-1, 1, 1) * torch.ones(1, config.horizon, 2)
        self.register_buffer("trajectory_anchors", anchors)
        feat = c * (config.bev_size // 2) ** 2
        self.plan_head = nn.Linear(feat + config.horizon * 2, 64)
        self.offset_head = nn.Linear(64, config.horizon * 2)
        self.im_reward_head = nn.Linear(64, 1)
        self.sim_reward_head = nn.Linear(64, 1)
        self.world_model = nn.Conv2d(c + 2, config.num_classes, 3, padding=1)

    def forward(self, features: Dict[str, Tensor]) -> Dict[str, Tensor]:
        bev = features["bev_raster"]
        b = bev.shape[0]
        k, h = self.config.num_anchors, self.config.horizon
        f = self.bev_encoder(bev)  # b, c, s, s
        flat = f.flatten(1).unsqueeze(1).expand(b, k, -1)
        anchors = self.trajectory_anchors.view(1, k, h * 2).expand(b, -1, -1)
        hid = F.relu(self.plan_head(torch.cat([flat, anchors], -1)))
        offsets = self.offset_head(hid).view(b, k, h, 2)
        # world model: imagine the future BEV for every anchor's end point
        end = (anchors.view(b, k, h, 2)[:, :, -1] + offsets[:, :, -1]).view(b * k, 2, 1, 1)
        f_rep = f.unsqueeze(1).expand(b, k, *f.shape[1:]).reshape(b * k, *f.shape[1:])
        fut = self.world_model(torch.cat([f_rep, end.expand(-1, -1, *f.shape[2:])], 1))
        return {
            "trajectory_anchors": self.trajectory_anchors,
            "trajectory_offset": offsets,
            "im_rewards": self.im_reward_head(hid).squeeze(-1),
            "sim_rewards": self.sim_reward_head(hid).squeeze(-1),
            "fut_bev_semantic_map": fut,
        }


def compute_wote_loss(targets, predictions, config) -> Dict[str, Tensor]:
    loss_dict = {}
    gt = targets["trajectory"]  # b, h, 2
    anchors = predictions["trajectory_anchors"]
    dist = ((anchors.unsqueeze(0) - gt.unsqueeze(1)) ** 2).sum((-1, -2))  # b, k
    best = dist.argmin(1)
    pred = anchors[best] + predictions["trajectory_offset"][torch.arange(gt.shape[0]), best]
    loss_dict["traj_offset_loss"] = F.l1_loss(pred, gt) * config.traj_offset_loss_weight
    loss_dict["im_reward_loss"] = F.cross_entropy(predictions["im_rewards"], best) * config.offset_im_reward_weight
    loss_dict["sim_reward_loss"] = F.binary_cross_entropy_with_logits(predictions["sim_rewards"], targets["sim_ok"])
    b, k = predictions["sim_rewards"].shape
    fut_gt = targets["fut_bev_semantic_map"].repeat_interleave(k, 0)
    loss_dict["fut_map_loss"] = F.cross_entropy(predictions["fut_bev_semantic_map"], fut_gt) * config.fut_bev_semantic_weight
    loss_dict["im_acc"] = (predictions["im_rewards"].argmax(1) == best).float().mean()
    return loss_dict


class WoTEAgent(nn.Module):
    def __init__(self, config=WoTEConfig):
        super().__init__()
        self.config = config
        self.WoTE_model = WoTEModel(config)

    def forward(self, features, targets=None):
        return self.WoTE_model(features)

    def compute_loss(self, features, targets, predictions):
        return compute_wote_loss(targets, predictions, self.config)

    def get_optimizers(self):
        return torch.optim.Adam(self.WoTE_model.parameters(), lr=self.config.lr)


class AgentLightningModule(LightningModule):
    def __init__(self, agent: WoTEAgent):
        super().__init__()
        self.agent = agent

    def _step(self, batch: Tuple[Dict[str, Tensor], Dict[str, Tensor]], logging_prefix: str):
        features, targets = batch
        input_target = getattr(self.agent.config, "input_target", False)
        if input_target:
            prediction = self.agent.forward(features, targets)
        else:
            prediction = self.agent.forward(features)
        loss_dict = self.agent.compute_loss(features, targets, prediction)
        if isinstance(loss_dict, Tensor):
            loss_dict = {"traj_loss": loss_dict}
        total_loss = 0.0
        for loss_key, loss_value in loss_dict.items():
            self.log(f"{logging_prefix}/{loss_key}", loss_value, on_step=True, on_epoch=True, prog_bar=True, sync_dist=True)
            if "acc" in loss_key:
                continue
            total_loss = total_loss + loss_value
        return total_loss

    def training_step(self, batch, batch_idx: int):
        return self._step(batch, "train")

    def validation_step(self, batch, batch_idx: int):
        return self._step(batch, "val")

    def configure_optimizers(self):
        return self.agent.get_optimizers()

    def backward(self, loss):
        # print('set detect anomaly')
        # torch.autograd.set_detect_anomaly(True)
        loss.backward(retain_graph=True)  # TLK201


class Trainer:
    def __init__(self, max_steps, val_every=1000):
        self.max_steps, self.val_every = max_steps, val_every

    def fit(self, module: AgentLightningModule, train_loader, val_loader):
        optimizer = module.configure_optimizers()
        module.train()
        for step, batch in enumerate(train_loader):
            if step >= self.max_steps:
                break
            loss = module.training_step(batch, step)
            optimizer.zero_grad()
            module.backward(loss)
            optimizer.step()
            if (step + 1) % self.val_every == 0:
                module.eval()
                with torch.no_grad():
                    for i, vb in enumerate(val_loader):
                        module.validation_step(vb, i)
                module.train()
        return module


def make_batches(n, b=4, config=WoTEConfig):
    torch.manual_seed(0)
    batches = []
    for _ in range(n):
        features = {"bev_raster": torch.rand(b, config.num_classes, config.bev_size, config.bev_size)}
        targets = {
            "trajectory": torch.randn(b, config.horizon, 2) * 0.5,
            "sim_ok": (torch.rand(b, config.num_anchors) > 0.5).float(),
            "fut_bev_semantic_map": torch.randint(0, config.num_classes, (b, config.bev_size // 2, config.bev_size // 2)),
        }
        batches.append((features, targets))
    return batches


def run(steps):
    module = AgentLightningModule(WoTEAgent())
    trainer = Trainer(max_steps=steps)
    trainer.fit(module, make_batches(steps + 4), make_batches(2))  # one epoch, stopped at max_steps
    return module


if __name__ == "__main__":
    run(10)
