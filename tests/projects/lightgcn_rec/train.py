# Modelled on: https://github.com/gusye1234/LightGCN-PyTorch
import time

import torch

import Procedure
import utils
import world
from dataloader import SyntheticLoader
from model import LightGCN
from world import cprint


def main(steps=200):
    utils.set_seed(world.seed)
    print(">>SEED:", world.seed)
    dataset = SyntheticLoader()
    Recmodel = LightGCN(world.config, dataset).to(world.device)
    bpr = utils.BPRLoss(Recmodel, world.config)
    memory = utils.ScoreMemory(dataset.n_users, dataset.m_items,
                               world.config['mem_size'], world.config['mem_beta'],
                               world.config['mem_warmup'])

    history = {'train_loss': [], 'test': []}
    done, epoch = 0, 0
    while done < steps:
        start = time.time()
        aver_loss, n_batches, time_info = Procedure.BPR_train_original(
            dataset, Recmodel, bpr, memory, epoch, max_batches=steps - done)
        done += n_batches
        history['train_loss'].append(aver_loss)  # known-false: TLK102 (the author marked this leak at another line)
        print(f'EPOCH[{epoch + 1}] loss{float(aver_loss):.3f}-{time_info} ({time.time() - start:.2f}s)')
        epoch += 1
    cprint("[TEST]")
    history['test'].append(Procedure.Test(dataset, Recmodel, epoch))
    return Recmodel, memory, history


if __name__ == '__main__':
    main()
