import numpy as np
import json
import os


def load_data(prefix, num_nodes=300, num_feats=50, num_classes=5, seed=3):
    """Synthetic stand-in for ./<prefix>/{adj_full,adj_train,role,feats,class_map}:
    a stochastic-block graph whose features are noisy class centroids."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, num_classes, size=num_nodes)
    p_in, p_out = 0.06, 0.004
    probs = np.where(labels[:, None] == labels[None, :], p_in, p_out)
    upper = np.triu(rng.rand(num_nodes, num_nodes) < probs, 1)
    adj_full = (upper | upper.T)
    centroids = rng.randn(num_classes, num_feats)
    feats = centroids[labels] + 1.5 * rng.randn(num_nodes, num_feats)
    perm = rng.permutation(num_nodes)
    n_tr, n_va = int(0.5 * num_nodes), int(0.25 * num_nodes)
    role = {'tr': sorted(perm[:n_tr].tolist()),
            'va': sorted(perm[n_tr:n_tr + n_va].tolist()),
            'te': sorted(perm[n_tr + n_va:].tolist())}
    train_mask = np.zeros(num_nodes, dtype=bool)
    train_mask[role['tr']] = True
    adj_train = adj_full & train_mask[:, None] & train_mask[None, :]
    class_map = {int(i): int(labels[i]) for i in range(num_nodes)}
    # ---- normalize feats ----
    train_feats = feats[role['tr']]
    feats = (feats - train_feats.mean(0)) / (train_feats.std(0) + 1e-8)
    # -------------------------
    return adj_full, adj_train, feats, class_map, role


def process_graph_data(adj_full, adj_train, feats, class_map, role):
    """
    setup vertex property map for output classes, train/val/test masks, and feats
    """
    num_vertices = adj_full.shape[0]
    if isinstance(list(class_map.values())[0], list):
        num_classes = len(list(class_map.values())[0])
        class_arr = np.zeros((num_vertices, num_classes))
        for k, v in class_map.items():
            class_arr[k] = v
    else:
        num_classes = max(class_map.values()) - min(class_map.values()) + 1
        class_arr = np.zeros((num_vertices, num_classes))
        offset = min(class_map.values())
        for k, v in class_map.items():
            class_arr[k][v - offset] = 1
    return adj_full, adj_train, feats, class_arr, role


def parse_layer_yml(arch_gcn, dim_input):
    num_layers = len(arch_gcn['arch'].split('-'))
    # set default values, then update by arch_gcn
    bias_layer = [arch_gcn['bias']] * num_layers
    act_layer = [arch_gcn['act']] * num_layers
    aggr_layer = [arch_gcn['aggr']] * num_layers
    dims_layer = [arch_gcn['dim']] * num_layers
    order_layer = [int(o) for o in arch_gcn['arch'].split('-')]
    return [dim_input] + dims_layer, order_layer, act_layer, bias_layer, aggr_layer


def parse_n_prepare(flags, root='.'):
    with open(os.path.join(root, flags.train_config)) as f_train_config:
        train_config = json.load(f_train_config)
    arch_gcn = {'dim': -1, 'aggr': 'concat', 'loss': 'softmax', 'arch': '1', 'act': 'I', 'bias': 'norm'}
    arch_gcn.update(train_config['network'][0])
    train_params = {'lr': 0.01, 'weight_decay': 0., 'norm_loss': True, 'norm_aggr': True, 'q_threshold': 50, 'q_offset': 0}
    train_params.update(train_config['params'][0])
    train_phases = train_config['phase']
    for ph in train_phases:
        assert 'end' in ph
        assert 'dropout' in ph
        assert 'sampler' in ph
    temp_data = load_data(flags.data_prefix)
    train_data = process_graph_data(*temp_data)
    return train_params, train_phases, train_data, arch_gcn


def adj_norm(adj, deg=None):
    """
    Normalize adj by random-walk normalization: D^{-1} x adj
    (dense boolean/float matrix in, float32 matrix out).
    """
    adj = adj.astype(np.float32)
    D = adj.sum(1).flatten() if deg is None else np.asarray(deg, dtype=np.float32)
    D = np.where(D > 0, D, 1.0)
    return adj / D[:, None]


##################
# PRINTING UTILS #
# ----------------#

_bcolors = {'header': '\033[95m',
            'blue': '\033[94m',
            'green': '\033[92m',
            'yellow': '\033[93m',
            'red': '\033[91m',
            'bold': '\033[1m',
            'underline': '\033[4m'}


def printf(msg, style='', quiet=False):
    if quiet:
        return
    if not style or style == 'black':
        print(msg)
    else:
        print("{color1}{msg}{color2}".format(color1=_bcolors[style], msg=msg, color2='\033[0m'))
