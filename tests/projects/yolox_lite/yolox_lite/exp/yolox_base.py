# Modelled on yolox/exp/yolox_base.py
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Exp:
    def __init__(self):
        # ---------------- model config ---------------- #
        self.num_classes = 4
        self.depth = 0.33
        self.width = 1.0
        self.act = "silu"
        # ---------------- dataloader config ---------------- #
        self.data_num_workers = 0
        self.input_size = (64, 64)
        self.num_train_images = 64
        # --------------- training config ----------------- #
        self.warmup_epochs = 1
        self.max_epoch = 10
        self.warmup_lr = 0
        self.min_lr_ratio = 0.05
        self.basic_lr_per_img = 0.01 / 64.0
        self.scheduler = "yoloxwarmcos"
        self.no_aug_epochs = 0
        self.ema = True
        self.weight_decay = 5e-4
        self.momentum = 0.9
        self.print_interval = 5
        self.eval_interval = 10
        self.save_history_ckpt = False
        self.output_dir = "./YOLOX_outputs"
        self.exp_name = "yolox_lite_synthetic"
        # -----------------  testing config ------------------ #
        self.test_size = (64, 64)
        self.test_conf = 0.01
        self.nmsthre = 0.65

    def get_model(self):
        from yolox_lite.models import YOLOPAFPN, YOLOX, YOLOXHead

        def init_yolo(M):
            for m in M.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eps = 1e-3
                    m.momentum = 0.03

        if getattr(self, "model", None) is None:
            in_channels = (16, 32)
            backbone = YOLOPAFPN(self.depth, self.width, in_channels=in_channels, act=self.act)
            head = YOLOXHead(self.num_classes, self.width, in_channels=in_channels, act=self.act)
            self.model = YOLOX(backbone, head)

        self.model.apply(init_yolo)
        self.model.head.initialize_biases(1e-2)
        self.model.train()
        return self.model

    def get_data_loader(self, batch_size, is_distributed=False, no_aug=False, cache_img=None):
        from yolox_lite.data import SyntheticDetection, collate_fn

        self.dataset = SyntheticDetection(self.num_train_images, self.input_size, self.num_classes)
        g = torch.Generator().manual_seed(0)
        return DataLoader(self.dataset, batch_size=batch_size, shuffle=True, generator=g,
                          num_workers=self.data_num_workers, collate_fn=collate_fn, drop_last=True)

    def preprocess(self, inputs, targets, tsize):
        return inputs, targets

    def random_resize(self, data_loader, epoch, rank, is_distributed):
        return self.input_size

    def get_optimizer(self, batch_size):
        if "optimizer" not in self.__dict__:
            if self.warmup_epochs > 0:
                lr = self.warmup_lr
            else:
                lr = self.basic_lr_per_img * batch_size

            pg0, pg1, pg2 = [], [], []  # optimizer parameter groups
            for k, v in self.model.named_modules():
                if hasattr(v, "bias") and isinstance(v.bias, nn.Parameter):
                    pg2.append(v.bias)  # biases
                if isinstance(v, nn.BatchNorm2d) or "bn" in k:
                    pg0.append(v.weight)  # no decay
                elif hasattr(v, "weight") and isinstance(v.weight, nn.Parameter):
                    pg1.append(v.weight)  # apply decay

            optimizer = torch.optim.SGD(pg0, lr=lr, momentum=self.momentum, nesterov=True)
            optimizer.add_param_group({"params": pg1, "weight_decay": self.weight_decay})
            optimizer.add_param_group({"params": pg2})
            self.optimizer = optimizer
        return self.optimizer

    def get_lr_scheduler(self, lr, iters_per_epoch):
        from yolox_lite.utils import LRScheduler

        return LRScheduler(
            self.scheduler, lr, iters_per_epoch, self.max_epoch,
            warmup_epochs=self.warmup_epochs, warmup_lr_start=self.warmup_lr,
            no_aug_epochs=self.no_aug_epochs, min_lr_ratio=self.min_lr_ratio,
        )

    @torch.no_grad()
    def eval(self, model, evaluator, is_distributed, half=False, return_outputs=False):
        """Tiny stand-in for COCOEvaluator: mean max-objectness over the eval images."""
        scores = []
        for imgs, _, _, _ in evaluator:
            outputs = model(imgs)
            scores.append(outputs[..., 4].max(dim=1).values.mean().item())
        ap = sum(scores) / max(len(scores), 1)
        summary = "synthetic AP proxy: {:.4f}".format(ap)
        if return_outputs:
            return (ap, ap, summary), None
        return ap, ap, summary

    def get_evaluator(self, batch_size, is_distributed=False):
        from yolox_lite.data import SyntheticDetection, collate_fn

        ds = SyntheticDetection(8, self.test_size, self.num_classes, seed=1)
        return DataLoader(ds, batch_size=batch_size, shuffle=False, collate_fn=collate_fn)
