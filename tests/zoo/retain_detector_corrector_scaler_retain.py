# Source: https://github.com/hiyoung123/SoftMaskedBert/issues/15
# Shape: a spelling-correction trainer (detection head plus correction head) mixes both losses into one scalar and backwards it through a GradScaler with retain_graph=True inside its per-batch _train_step method; it is the only backward, so the whole retained BERT graph lingers into the next batch.
# Verdict: leak
import torch
import torch.nn as nn


class SoftMaskedTrainer:
    def __init__(self, model: nn.Module, lr=2e-5, gamma=0.8, device="cuda"):
        self.model = model.to(device)
        self.device = device
        self.gamma = gamma
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scaler = torch.cuda.amp.GradScaler()
        self.detection_criterion = nn.BCELoss()
        self.correction_criterion = nn.NLLLoss(ignore_index=0)

    def _train_step(self, batch):
        input_ids = batch["input_ids"].to(self.device)
        attention_mask = batch["attention_mask"].to(self.device)
        det_labels = batch["det_labels"].to(self.device)
        output_ids = batch["output_ids"].to(self.device)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            det_prob, cor_log_prob = self.model(input_ids, attention_mask)
            det_loss = self.detection_criterion(det_prob.squeeze(-1).float() * attention_mask, det_labels.float())
            cor_loss = self.correction_criterion(cor_log_prob.reshape(-1, cor_log_prob.size(-1)), output_ids.reshape(-1))
            loss = (1 - self.gamma) * det_loss + self.gamma * cor_loss
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward(retain_graph=True)  # TLK201
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return det_loss.item(), cor_loss.item()

    def train(self, loader, epochs):
        for epoch in range(epochs):
            self.model.train()
            det_total = cor_total = 0.0
            for i, batch in enumerate(loader):
                det, cor = self._train_step(batch)
                det_total += det
                cor_total += cor
            print(f"epoch {epoch}: detection {det_total / (i + 1):.4f} correction {cor_total / (i + 1):.4f}")
