# Modelled on wenet-e2e/wenet (Apache-2.0), simplified for a CPU test; the upstream file's authors are credited there.
"""Entry point modelled on wenet/bin/train.py: build configs, model, optimizer,
executor, then run one epoch of `steps` batches and a CV pass."""
import copy
import logging

import torch

from wenet.dataset.dataset import init_dataset_and_dataloader
from wenet.models.transformer.asr_model import ASRModel
from wenet.models.transformer.ctc import CTC
from wenet.models.transformer.decoder import TransformerDecoder
from wenet.models.transformer.encoder import TransformerEncoder
from wenet.utils.executor import Executor
from wenet.utils.train_utils import (init_optimizer_and_scheduler, init_scaler,
                                     init_summarywriter, log_per_epoch)

CONFIGS = {
    'input_dim': 16,
    'output_dim': 20,
    'encoder_conf': {
        'output_size': 32,
        'attention_heads': 4,
        'linear_units': 64,
        'num_blocks': 2,
        'dropout_rate': 0.1,
    },
    'decoder_conf': {
        'attention_heads': 4,
        'linear_units': 64,
        'num_blocks': 1,
        'dropout_rate': 0.1,
    },
    'model_conf': {
        'ctc_weight': 0.3,
        'lsm_weight': 0.1,
        'length_normalized_loss': False,
    },
    'dataset_conf': {
        'batch_size': 4,
        'feat_dim': 16,
        'max_frames': 24,
        'vocab_size': 20,
        'max_tokens': 6,
    },
    'optim': 'adam',
    'optim_conf': {'lr': 0.002},
    'scheduler_conf': {'warmup_steps': 25},
    'accum_grad': 1,
    'grad_clip': 5.0,
    'log_interval': 10,
    'train_engine': 'torch_ddp',
    'dtype': 'fp32',
    'use_amp': False,
}


def init_model(configs):
    encoder = TransformerEncoder(configs['input_dim'],
                                 **configs['encoder_conf'])
    decoder = TransformerDecoder(configs['output_dim'],
                                 encoder.output_size(),
                                 **configs['decoder_conf'])
    ctc = CTC(configs['output_dim'], encoder.output_size())
    model = ASRModel(vocab_size=configs['output_dim'],
                     encoder=encoder,
                     decoder=decoder,
                     ctc=ctc,
                     **configs['model_conf'])
    return model


def main(steps):
    torch.set_num_threads(1)  # tiny CPU run; avoid thread oversubscription
    torch.manual_seed(777)
    configs = copy.deepcopy(CONFIGS)
    device = torch.device('cpu')

    _, _, train_data_loader, cv_data_loader = init_dataset_and_dataloader(
        configs, num_train_batches=steps, num_cv_batches=2)
    model = init_model(configs).to(device)
    model, optimizer, scheduler = init_optimizer_and_scheduler(configs, model)
    writer = init_summarywriter(configs)
    scaler = init_scaler(configs)

    executor = Executor(global_step=0, device=device)
    configs['epoch'] = 0
    executor.train(model, optimizer, scheduler, train_data_loader,
                   cv_data_loader, writer, configs, scaler)
    train_stats = executor.epoch_stats()
    loss_dict = executor.cv(model, cv_data_loader, configs)

    info_dict = {
        'epoch': 0,
        'step': executor.step,
        'lrs': [group['lr'] for group in optimizer.param_groups],
        'loss_dict': loss_dict,
    }
    log_per_epoch(writer, info_dict)
    return {
        'train': train_stats,
        'cv': loss_dict,
        'step': executor.step,
        'writer': writer,
    }


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO)
    print(main(20))
