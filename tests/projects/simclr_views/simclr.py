import logging

import torch
import torch.nn.functional as F

from utils import EMAStat, FeatureBank, ScalarWriter, accuracy, save_checkpoint

logger = logging.getLogger("simclr")


class SimCLR:
    def __init__(self, *args, **kwargs):
        self.args = kwargs["args"]
        self.model = kwargs["model"]
        self.optimizer = kwargs["optimizer"]
        self.scheduler = kwargs["scheduler"]
        self.writer = ScalarWriter()
        self.criterion = torch.nn.CrossEntropyLoss()
        self.bank = FeatureBank(self.args.bank_size, self.args.out_dim)
        self.eval_bank = FeatureBank(self.args.bank_size, self.args.out_dim)
        self.pos_sim = EMAStat(0.9)
        self.eval_feat_mean = EMAStat(0.9)

    def info_nce_loss(self, features):
        n = features.size(0) // self.args.n_views
        labels = torch.cat([torch.arange(n) for _ in range(self.args.n_views)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        features = F.normalize(features, dim=1)
        similarity_matrix = features @ features.T
        mask = torch.eye(labels.size(0), dtype=torch.bool)
        labels = labels[~mask].view(labels.size(0), -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.size(0), -1)
        positives = similarity_matrix[labels.bool()].view(labels.size(0), -1)
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.size(0), -1)
        logits = torch.cat([positives, negatives], dim=1) / self.args.temperature
        targets = torch.zeros(logits.size(0), dtype=torch.long)
        return logits, targets, positives

    def knn_monitor(self, loader):
        self.model.eval()
        with torch.no_grad():
            for images, _ in loader:
                feats = F.normalize(self.model(images[0]), dim=1)
                self.eval_bank.push(feats)
                self.eval_feat_mean.update(feats.mean())
        self.model.train()
        return len(self.eval_bank)

    def train(self, train_loader, val_loader=None):
        n_iter = 0
        logger.info("Start SimCLR training for %d epochs.", self.args.epochs)
        for epoch_counter in range(self.args.epochs):
            for images, _ in train_loader:
                images = torch.cat(images, dim=0)
                features = self.model(images)
                logits, labels, positives = self.info_nce_loss(features)
                loss = self.criterion(logits, labels)

                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

                self.bank.push(F.normalize(features, dim=1))  # expect: TLK102 (utils.py)
                self.pos_sim.update(positives.mean())  # expect: TLK103 (utils.py)
                if n_iter % self.args.log_every_n_steps == 0:
                    top1, top5 = accuracy(logits, labels, topk=(1, 5))
                    self.writer.add_scalar("loss", loss, global_step=n_iter)  # expect: TLK101 (utils.py)
                    self.writer.add_scalar("acc/top1", top1[0], global_step=n_iter)
                    self.writer.add_scalar("acc/top5", top5[0], global_step=n_iter)
                    self.writer.add_scalar("learning_rate", self.scheduler.get_last_lr()[0], global_step=n_iter)
                n_iter += 1

            if epoch_counter >= 1:
                self.scheduler.step()
            means = self.writer.epoch_means()
            logger.info("Epoch: %d\tLoss: %.4f\tTop1 accuracy: %.2f", epoch_counter, means.get("loss", 0.0),
                        means.get("acc/top1", 0.0))
            if val_loader is not None:
                self.knn_monitor(val_loader)

        save_checkpoint({"epoch": self.args.epochs, "state_dict": self.model.state_dict(),
                         "optimizer": self.optimizer.state_dict()}, is_best=False, filename=None)
        return float(self.pos_sim.value)
