# Modelled on: https://github.com/graphdeeplearning/benchmarking-gnns (main_SBMs_node_classification.py,
#   train/train_SBMs_node_classification.py, train/metrics.py, nets/SBMs_node_classification/{load_net,gated_gcn_net}.py,
#   layers/{gated_gcn_layer,mlp_readout_layer}.py, data/{data,SBMs}.py; configs/SBMs_node_clustering_GatedGCN_PATTERN_100k.json)
# The repository's train/ folder is named train_utils/ here because this entry point is train.py.
"""
    IMPORTING LIBS
"""
import json
import os
import random
import time
from pathlib import Path

import torch
import torch.optim as optim
from torch.utils.data import DataLoader


class DotDict(dict):
    def __init__(self, **kwds):
        self.update(kwds)
        self.__dict__ = self


"""
    IMPORTING CUSTOM MODULES/METHODS
"""
from nets.SBMs_node_classification.load_net import gnn_model  # import GNNs
from data.data import LoadData  # import dataset
from train_utils.losses import CalibratedWeightedCE
from train_utils.metrics import NodeSaliency
from train_utils.train_SBMs_node_classification import train_epoch_sparse as train_epoch, \
    evaluate_network_sparse as evaluate_network

CONFIG = Path(__file__).resolve().parent / 'configs' / 'SBMs_node_clustering_GatedGCN_PATTERN_100k.json'


class ScalarWriter:
    """Stands in for tensorboardX.SummaryWriter: keeps (tag, step, value) triples."""

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = []

    def add_scalar(self, tag, value, step):
        self.scalars.append((tag, step, float(value)))

    def close(self):
        pass


"""
    GPU Setup
"""
def gpu_setup(use_gpu, gpu_id):
    os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu_id)

    if torch.cuda.is_available() and use_gpu:
        print('cuda available with GPU:', torch.cuda.get_device_name(0))
        device = torch.device("cuda")
    else:
        print('cuda not available')
        device = torch.device("cpu")
    return device


"""
    VIEWING MODEL CONFIG AND PARAMS
"""
def view_model_param(MODEL_NAME, net_params):
    model = gnn_model(MODEL_NAME, net_params)
    total_param = 0
    print("MODEL DETAILS:\n")
    for param in model.parameters():
        total_param += param.numel()
    print('MODEL/Total parameters:', MODEL_NAME, total_param)
    return total_param


"""
    TRAINING CODE
"""
def train_val_pipeline(MODEL_NAME, dataset, params, net_params):

    start0 = time.time()
    per_epoch_time = []

    DATASET_NAME = dataset.name
    trainset, valset, testset = dataset.train, dataset.val, dataset.test
    device = net_params['device']

    writer = ScalarWriter(log_dir=os.path.join('out', 'logs', 'RUN_0'))

    # setting seeds
    random.seed(params['seed'])
    torch.manual_seed(params['seed'])

    print("Training Graphs: ", len(trainset))
    print("Validation Graphs: ", len(valset))
    print("Test Graphs: ", len(testset))
    print("Number of Classes: ", net_params['n_classes'])

    model = gnn_model(MODEL_NAME, net_params)
    model = model.to(device)
    criterion = CalibratedWeightedCE(net_params['n_classes']).to(device)

    optimizer = optim.Adam(model.parameters(), lr=params['init_lr'], weight_decay=params['weight_decay'])
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode='min',
                                                     factor=params['lr_reduce_factor'],
                                                     patience=params['lr_schedule_patience'])

    epoch_train_losses, epoch_val_losses = [], []
    epoch_train_accs, epoch_val_accs = [], []
    saliency = NodeSaliency(net_params['n_classes'], every=params['saliency_every'])

    g = torch.Generator().manual_seed(params['seed'])
    train_loader = DataLoader(trainset, batch_size=params['batch_size'], shuffle=True, collate_fn=dataset.collate,
                              generator=g)
    val_loader = DataLoader(valset, batch_size=params['batch_size'], shuffle=False, collate_fn=dataset.collate)
    test_loader = DataLoader(testset, batch_size=params['batch_size'], shuffle=False, collate_fn=dataset.collate)

    total_iters = 0
    max_steps = params.get('max_steps')
    for epoch in range(params['epochs']):
        start = time.time()

        left = None if max_steps is None else max_steps - total_iters
        epoch_train_loss, epoch_train_acc, optimizer, n_iters = train_epoch(
            model, criterion, optimizer, device, train_loader, epoch,
            grad_reg=params['grad_reg'], saliency=saliency, max_iters=left)
        total_iters += n_iters

        epoch_val_loss, epoch_val_acc = evaluate_network(model, criterion, device, val_loader, epoch)
        _, epoch_test_acc = evaluate_network(model, criterion, device, test_loader, epoch)

        epoch_train_losses.append(epoch_train_loss)
        epoch_val_losses.append(epoch_val_loss)
        epoch_train_accs.append(epoch_train_acc)
        epoch_val_accs.append(epoch_val_acc)

        writer.add_scalar('train/_loss', epoch_train_loss, epoch)
        writer.add_scalar('val/_loss', epoch_val_loss, epoch)
        writer.add_scalar('train/_acc', epoch_train_acc, epoch)
        writer.add_scalar('val/_acc', epoch_val_acc, epoch)
        writer.add_scalar('test/_acc', epoch_test_acc, epoch)
        writer.add_scalar('learning_rate', optimizer.param_groups[0]['lr'], epoch)
        writer.add_scalar('train/_temperature', criterion.temperature.item(), epoch)

        per_epoch_time.append(time.time() - start)
        scheduler.step(epoch_val_loss)

        if optimizer.param_groups[0]['lr'] < params['min_lr']:
            print("\n!! LR SMALLER OR EQUAL TO MIN LR THRESHOLD.")
            break
        if max_steps is not None and total_iters >= max_steps:
            break
        # Stop training after params['max_time'] hours
        if time.time() - start0 > params['max_time'] * 3600:
            print('-' * 89)
            print("Max_time for training elapsed {:.2f} hours, so stopping".format(params['max_time']))
            break

    _, test_acc = evaluate_network(model, criterion, device, test_loader, epoch)
    _, train_acc = evaluate_network(model, criterion, device, train_loader, epoch)
    print("Test Accuracy: {:.4f}".format(test_acc))
    print("Train Accuracy: {:.4f}".format(train_acc))
    print("Convergence Time (Epochs): {:.4f}".format(epoch))
    print("TOTAL TIME TAKEN: {:.4f}s".format(time.time() - start0))
    writer.close()

    return DotDict(model=model, criterion=criterion, optimizer=optimizer, writer=writer, saliency=saliency,
                   history=dict(train_loss=epoch_train_losses, val_loss=epoch_val_losses,
                                train_acc=epoch_train_accs, val_acc=epoch_val_accs),
                   test_acc=test_acc, train_acc=train_acc)


def main(steps, config_path=CONFIG):
    """
        USER CONTROLS (the argparse overrides of main_SBMs_node_classification.py are not needed here)
    """
    with open(config_path) as f:
        config = json.load(f)

    # device
    device = gpu_setup(config['gpu']['use'], config['gpu']['id'])
    MODEL_NAME = config['model']
    DATASET_NAME = config['dataset']
    dataset = LoadData(DATASET_NAME)
    # parameters
    params = config['params']
    params['max_steps'] = steps
    # network parameters
    net_params = config['net_params']
    net_params['device'] = device
    net_params['gpu_id'] = config['gpu']['id']
    net_params['batch_size'] = params['batch_size']

    # SBM
    net_params['in_dim'] = 3
    net_params['n_classes'] = 2

    torch.manual_seed(params['seed'])
    net_params['total_param'] = view_model_param(MODEL_NAME, net_params)
    return train_val_pipeline(MODEL_NAME, dataset, params, net_params)


if __name__ == '__main__':
    main(10)
