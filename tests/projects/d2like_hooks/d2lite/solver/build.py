import torch


def build_optimizer(cfg, model):
    params = [p for p in model.parameters() if p.requires_grad]
    return torch.optim.SGD(params, lr=cfg.SOLVER.BASE_LR, momentum=cfg.SOLVER.MOMENTUM,
                           weight_decay=cfg.SOLVER.WEIGHT_DECAY)


def build_lr_scheduler(cfg, optimizer):
    return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=list(cfg.SOLVER.STEPS),
                                                gamma=cfg.SOLVER.GAMMA)
