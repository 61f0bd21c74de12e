# Modelled on: https://github.com/AntixK/PyTorch-VAE
import argparse

import torch

from dataset import VAEDataset
from experiment import VAEXperiment
from models import vae_models
from utils import MetricLogger, seed_everything

CONFIG = {
    'model_params': {'name': 'BetaVAE', 'in_channels': 1, 'img_size': 16, 'latent_dim': 8,
                     'loss_type': 'B', 'gamma': 10.0, 'max_capacity': 25, 'Capacity_max_iter': 1000},
    'data_params': {'train_batch_size': 16, 'val_batch_size': 16, 'num_workers': 0},
    'exp_params': {'LR': 0.003, 'weight_decay': 0.0, 'scheduler_gamma': 0.99, 'kld_weight': 0.01,
                   'jac_weight': 0.01, 'retain_first_backpass': True, 'manual_seed': 1265},
    'trainer_params': {'log_every_n_steps': 10, 'sample_every_n_steps': 10},
    'logging_params': {'save_dir': 'logs/', 'name': 'BetaVAE'},
}


def main(n_steps=30, config=CONFIG):
    seed_everything(config['exp_params']['manual_seed'])
    logger = MetricLogger(**config['logging_params'])
    model = vae_models[config['model_params']['name']](**config['model_params'])
    experiment = VAEXperiment(model, config['exp_params'], logger)
    data = VAEDataset(**config['data_params'])
    optimizer, scheduler = experiment.configure_optimizers()
    tp = config['trainer_params']

    loss_curve = []
    step = 0
    while step < n_steps:
        for batch_idx, batch in enumerate(data.train_dataloader()):
            model.train()
            loss = experiment.training_step(batch, batch_idx)
            experiment.backward(loss)
            gnorm = experiment.optimizer_step(optimizer)
            loss_curve.append(loss.item())
            step += 1

            if step % tp['log_every_n_steps'] == 0:
                print("step {:4d} loss {:.4f} |g| {:.3f} {}".format(step, loss_curve[-1], gnorm, logger.summary()))
            if step % tp['sample_every_n_steps'] == 0:
                scheduler.step()
                model.eval()
                with torch.no_grad():
                    experiment.sample_images()
            if step >= n_steps:
                break

    return {'experiment': experiment, 'logger': logger, 'model': model, 'loss_curve': loss_curve}


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='Generic runner for VAE models')
    parser.add_argument('--steps', type=int, default=30)
    args = parser.parse_args()
    main(args.steps)
