# Source: https://github.com/ratschlab/DeepSpot2Cell/issues/2
# Shape: Fixed as suggested in the issue: training_step appends cell_preds[...].detach().cpu() (and targets .cpu()), so the epoch-long metric lists hold plain values; validation_step keeps appending raw preds because it runs under no_grad.
# Verdict: clean
"""DeepSpot2Cell-style set model (Phi/Rho ensembles over cell and neighbourhood
embeddings) as a LightningModule.  Lightning itself is not needed: a tiny
MiniTrainer below reproduces the hooks used here (training_step with automatic
optimisation, validation under no_grad, self.log that stores detached scalars,
epoch-end hooks).  Synthetic spot/cell data on CPU."""
from typing import Dict

import torch
import torch.nn as nn


def mse(pred, target):
    return ((pred - target) ** 2).mean()


def safe_pearson(x, y, eps=1e-8):
    x = x - x.mean(0, keepdim=True)
    y = y - y.mean(0, keepdim=True)
    return (x * y).sum(0) / (x.norm(dim=0) * y.norm(dim=0) + eps)


class LightningModule(nn.Module):
    """Minimal stand-in for lightning.LightningModule (only what this file uses)."""

    def __init__(self):
        super().__init__()
        self.logged = {}

    def save_hyperparameters(self, **kwargs):
        self.hparams = type("HParams", (), kwargs)

    def log(self, name, value, on_epoch=True, prog_bar=False):
        # Lightning detaches and aggregates logged values
        self.logged.setdefault(name, []).append(float(value.detach()) if torch.is_tensor(value) else float(value))


class Phi(nn.Module):
    def __init__(self, input_size, output_size, p=0.0):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(input_size, output_size), nn.ReLU(), nn.Dropout(p))

    def forward(self, x):
        return self.model(x)


class Rho(nn.Module):
    def __init__(self, input_size, output_size, p=0.0):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(input_size, input_size // 2), nn.ReLU(), nn.Dropout(p),
                                   nn.Linear(input_size // 2, output_size))

    def forward(self, x):
        return self.model(x)


class DeepSpot2Cell(LightningModule):
    def __init__(self, input_size, output_size, lr=1e-4, p=0.3, n_ensemble=2, phi2rho_size=32,
                 weight_decay=1e-6, cell_gt_available=True):
        super().__init__()
        self.save_hyperparameters(phi2rho_size=phi2rho_size)
        self.lr = lr
        self.weight_decay = weight_decay
        self.loss_fn = mse

        self.train_batch_losses = []
        self.train_cell_inside_preds = []
        self.train_cell_inside_targets = []
        self.train_cell_outside_preds = []
        self.train_cell_outside_targets = []

        self.val_batch_losses = []
        self.val_cell_inside_preds = []
        self.val_cell_inside_targets = []
        self.val_cell_outside_preds = []
        self.val_cell_outside_targets = []

        mult = 3
        self.phi_spot = nn.ModuleList([Phi(input_size, phi2rho_size, p) for _ in range(n_ensemble)])
        self.phi_cell = nn.ModuleList([Phi(input_size, phi2rho_size, p) for _ in range(n_ensemble)])
        self.rho = nn.ModuleList([Rho(phi2rho_size * mult, output_size, p) for _ in range(n_ensemble)])
        self.cell_gt_available = cell_gt_available

    def forward(self, x, mask, context, context_mask):
        return self._forward_superspot(x, mask, context, context_mask)

    def _forward_single_cell(self, x, context, context_mask):
        x = x.unsqueeze(0) if x.dim() == 1 else x
        n_cells, _ = x.shape
        phi_cells = self._apply_phi_cell(x)
        phi_context_spot_own = self._apply_phi(context[0].unsqueeze(0))
        neighbor_contexts = context[1:, :]
        neighbor_masks = context_mask[1:]
        phi_neighbor_contexts = self._apply_phi(neighbor_contexts)
        phi_neighbor_contexts = phi_neighbor_contexts.masked_fill(neighbor_masks.unsqueeze(-1), 0.0)
        num_valid = (~neighbor_masks).sum(dim=0, keepdim=True).float().clamp(min=1)
        mean_phi_neighbor = phi_neighbor_contexts.sum(dim=0, keepdim=True) / num_valid
        concatenated = torch.cat([phi_cells, phi_context_spot_own.expand(n_cells, -1),
                                  mean_phi_neighbor.expand(n_cells, -1)], dim=1)
        return self._apply_rho(concatenated)

    def _forward_superspot(self, x, mask=None, context=None, context_mask=None):
        b, c, d_cell_emb = x.shape
        _, n_total_ctx, d_ctx_emb = context.shape
        phi_cells = self._apply_phi_cell(x.view(-1, d_cell_emb)).view(b, c, -1)
        phi_context_spot_own = self._apply_phi(context[:, 0, :])
        neighbor_contexts = context[:, 1:, :]
        neighbor_masks = context_mask[:, 1:]
        phi_neighbor = self._apply_phi(neighbor_contexts.reshape(-1, d_ctx_emb)).view(b, n_total_ctx - 1, -1)
        phi_neighbor = phi_neighbor.masked_fill(neighbor_masks.unsqueeze(-1), 0.0)
        num_valid = (~neighbor_masks).sum(dim=1, keepdim=True).float().clamp(min=1)
        mean_phi_neighbor = phi_neighbor.sum(dim=1) / num_valid
        concatenated = torch.cat([phi_cells, phi_context_spot_own.unsqueeze(1).expand(-1, c, -1),
                                  mean_phi_neighbor.unsqueeze(1).expand(-1, c, -1)], dim=2)
        concatenated = concatenated * mask.unsqueeze(-1)
        return self._apply_rho(concatenated.sum(dim=1))

    def _apply_phi(self, x):
        return torch.median(torch.stack([p(x) for p in self.phi_spot], 1), 1).values

    def _apply_phi_cell(self, x):
        return torch.median(torch.stack([p(x) for p in self.phi_cell], 1), 1).values

    def _apply_rho(self, x):
        return torch.stack([r(x) for r in self.rho], 1).mean(1)

    def training_step(self, batch: Dict, batch_idx: int):
        cell_emb = batch['cell_embeddings'].float()
        spot_true = batch['spot_expression'].float()
        cell_true = batch['cell_expressions'].float()
        mask = batch['cell_mask'].float()
        context = batch['neighb_embeddings'].float()
        context_mask = batch['neighb_masks'].bool()
        is_inside = batch['is_inside_spot'].float()
        cell_emb_masked = cell_emb * is_inside.unsqueeze(-1)
        mask_inspot = mask * is_inside

        pred = self(cell_emb_masked, mask_inspot, context, context_mask)
        loss = self.loss_fn(pred, spot_true)
        self.log('train_loss', loss, on_epoch=True, prog_bar=True)
        self.train_batch_losses.append(loss.item())

        if self.cell_gt_available:
            for b in range(cell_emb.size(0)):
                valid = mask[b] > 0
                if valid.any():
                    cell_preds = self._forward_single_cell(cell_emb[b, valid], context[b],
                                                           context_mask[b]).clamp_(min=0.0)
                    cell_targets = cell_true[b, valid]
                    is_inside_batch = is_inside[b, valid]
                    inside_mask = is_inside_batch > 0
                    outside_mask = is_inside_batch == 0
                    if inside_mask.any():
                        self.train_cell_inside_preds.append(cell_preds[inside_mask].detach().cpu())
                        self.train_cell_inside_targets.append(cell_targets[inside_mask].cpu())
                    if outside_mask.any():
                        self.train_cell_outside_preds.append(cell_preds[outside_mask].detach().cpu())
                        self.train_cell_outside_targets.append(cell_targets[outside_mask].cpu())
        return loss

    def validation_step(self, batch: Dict, batch_idx: int):
        cell_emb = batch['cell_embeddings'].float()
        spot_true = batch['spot_expression'].float()
        cell_true = batch['cell_expressions'].float()
        mask = batch['cell_mask'].float()
        context = batch['neighb_embeddings'].float()
        context_mask = batch['neighb_masks'].bool()
        is_inside = batch['is_inside_spot'].float()
        spot_pred = self(cell_emb * is_inside.unsqueeze(-1), mask * is_inside, context, context_mask).clamp_(min=0.0)
        loss = self.loss_fn(spot_pred, spot_true)
        self.log('val_loss', loss, on_epoch=True, prog_bar=True)
        self.val_batch_losses.append(loss.item())
        for b in range(cell_emb.size(0)):
            valid = mask[b] > 0
            if valid.any():
                cell_preds = self._forward_single_cell(cell_emb[b, valid], context[b], context_mask[b]).clamp_(min=0.0)
                inside_mask = is_inside[b, valid] > 0
                if inside_mask.any():
                    self.val_cell_inside_preds.append(cell_preds[inside_mask])
                    self.val_cell_inside_targets.append(cell_true[b, valid][inside_mask])
        return loss

    def on_train_epoch_end(self):
        if self.train_cell_inside_preds:
            pearson = safe_pearson(torch.cat(self.train_cell_inside_preds), torch.cat(self.train_cell_inside_targets))
            self.log('train_cell_inside_pearson', pearson.mean(), prog_bar=True)
        self.train_cell_inside_preds.clear()
        self.train_cell_inside_targets.clear()
        self.train_cell_outside_preds.clear()
        self.train_cell_outside_targets.clear()

    def on_validation_epoch_end(self):
        if self.val_cell_inside_preds:
            pearson = safe_pearson(torch.cat(self.val_cell_inside_preds), torch.cat(self.val_cell_inside_targets))
            self.log('val_cell_inside_pearson', pearson.mean(), prog_bar=True)
        self.val_cell_inside_preds.clear()
        self.val_cell_inside_targets.clear()

    def configure_optimizers(self) -> dict:
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        return {"optimizer": optimizer}


class MiniTrainer:
    """Automatic optimisation like Lightning; stops after max_steps (mid-epoch)."""

    def __init__(self, max_steps, val_check_interval=8):
        self.max_steps = max_steps
        self.val_check_interval = val_check_interval
        self.global_step = 0

    def _validate(self, model, val_loader):
        model.eval()
        with torch.no_grad():
            for i, batch in enumerate(val_loader):
                model.validation_step(batch, i)
        model.on_validation_epoch_end()
        model.train()

    def fit(self, model, train_loader, val_loader):
        optimizer = model.configure_optimizers()["optimizer"]
        model.train()
        while self.global_step < self.max_steps:
            for batch_idx, batch in enumerate(train_loader):
                loss = model.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.global_step += 1
                if self.global_step % self.val_check_interval == 0:
                    self._validate(model, val_loader)
                if self.global_step >= self.max_steps:
                    return  # max_steps reached in the middle of a long epoch
            model.on_train_epoch_end()


def _make_batch(b=4, cells=6, neighbours=4, d=16, genes=8):
    cell_mask = (torch.rand(b, cells) > 0.2).float()
    cell_mask[:, 0] = 1.0
    neighb_masks = torch.rand(b, neighbours + 1) > 0.7
    neighb_masks[:, 0] = False
    return {
        'cell_embeddings': torch.randn(b, cells, d),
        'spot_expression': torch.rand(b, genes),
        'cell_expressions': torch.rand(b, cells, genes),
        'cell_mask': cell_mask,
        'neighb_embeddings': torch.randn(b, neighbours + 1, d),
        'neighb_masks': neighb_masks,
        'is_inside_spot': (torch.rand(b, cells) > 0.3).float(),
    }


def make_batches(n):
    torch.manual_seed(0)
    return [_make_batch() for _ in range(n)]


def run(steps):
    model = DeepSpot2Cell(input_size=16, output_size=8)
    trainer = MiniTrainer(max_steps=steps)
    train_loader = make_batches(steps + 8)  # one long epoch; we stop after `steps` batches
    val_loader = make_batches(2)
    trainer.fit(model, train_loader, val_loader)
    return model


if __name__ == "__main__":
    run(10)
