from skrl.resources.schedulers.torch.kl_adaptive import KLAdaptiveLR
