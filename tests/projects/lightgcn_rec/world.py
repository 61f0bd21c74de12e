'''
Global configuration for the LightGCN experiments (kept as a module-level dict,
as in the original code base).
'''
import os
import torch

os.environ['KMP_DUPLICATE_LIB_OK'] = 'True'

config = {}
config['bpr_batch_size'] = 64
config['latent_dim_rec'] = 16
config['lightGCN_n_layers'] = 3
config['dropout'] = 1
config['keep_prob'] = 0.6
config['test_u_batch_size'] = 32
config['lr'] = 0.001
config['decay'] = 1e-4
config['pretrain'] = 0
config['A_split'] = False
# smoothing of the propagated embeddings (history regulariser)
config['hist_momentum'] = 0.9
config['hist_weight'] = 0.05
# score memory used for hard negative sampling
config['mem_size'] = 8
config['mem_beta'] = 0.8
config['mem_warmup'] = 5

device = torch.device('cpu')
seed = 2020
topks = [5, 10]
n_users = 60
m_items = 90


def cprint(words: str):
    print(f"\033[0;30;43m{words}\033[0m")
