'''
Pytorch Implementation of LightGCN in
Xiangnan He et al. LightGCN: Simplifying and Powering Graph Convolution Network for Recommendation

Losses, samplers, metrics and misc helpers.
'''
from time import time

import numpy as np
import torch
from torch import optim

import world
from dataloader import BasicDataset
from model import PairWiseModel


class BPRLoss:
    def __init__(self, recmodel: PairWiseModel, config: dict):
        self.model = recmodel
        self.weight_decay = config['decay']
        self.lr = config['lr']
        self.opt = optim.Adam(recmodel.parameters(), lr=self.lr)

    def stageOne(self, users, pos, neg):
        loss, reg_loss = self.model.bpr_loss(users, pos, neg)
        reg_loss = reg_loss * self.weight_decay
        loss = loss + reg_loss

        self.opt.zero_grad()
        loss.backward(retain_graph=True)  # expect: TLK202
        self.opt.step()

        return loss  # known-miss: TLK101


class ScoreMemory:
    """Per-user memory of candidate negatives (SRNS-style).  For every user we
    keep `mem_size` candidate items together with a running mean of their
    predicted score and of its square; hard-but-stable negatives are drawn from
    high-mean / low-variance candidates."""

    def __init__(self, n_users, m_items, mem_size, beta, warmup):
        self.m_items = m_items
        self.beta = beta
        self.warmup = warmup
        self.items = torch.randint(0, m_items, (n_users, mem_size))
        self.stats = torch.zeros(n_users, mem_size, 2)
        self.n_updates = 0

    def candidates(self, users):
        return self.items[users]

    def update(self, users, scores):
        self.stats[users] = self.beta * self.stats[users] + (1 - self.beta) * torch.stack([scores, scores ** 2], -1)  # expect: TLK103
        self.n_updates += 1

    def sample(self, users, allPos):
        if self.n_updates < self.warmup:
            return torch.randint(0, self.m_items, (len(users),))
        stats = self.stats[users]
        mean, sq = stats[..., 0], stats[..., 1]
        std = (sq - mean ** 2).clamp_min(0).sqrt()
        pick = torch.argmax(mean - std, dim=1)
        negs = self.items[users].gather(1, pick[:, None]).squeeze(1)
        # never hand back a positive item
        for k, u in enumerate(users.tolist()):
            while int(negs[k]) in allPos[u]:
                negs[k] = np.random.randint(0, self.m_items)
        return negs


def UniformSample_original_python(dataset):
    """
    the original impliment of BPR Sampling in LightGCN
    :return:
        np.array
    """
    dataset: BasicDataset
    user_num = dataset.trainDataSize
    users = np.random.randint(0, dataset.n_users, user_num)
    allPos = dataset.allPos
    S = []
    for i, user in enumerate(users):
        posForUser = allPos[user]
        if len(posForUser) == 0:
            continue
        posindex = np.random.randint(0, len(posForUser))
        positem = posForUser[posindex]
        while True:
            negitem = np.random.randint(0, dataset.m_items)
            if negitem in posForUser:
                continue
            else:
                break
        S.append([user, positem, negitem])
    return np.array(S)


# ===================end samplers==========================
# =====================utils====================================

def set_seed(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)


def minibatch(*tensors, **kwargs):
    batch_size = kwargs.get('batch_size', world.config['bpr_batch_size'])
    if len(tensors) == 1:
        tensor = tensors[0]
        for i in range(0, len(tensor), batch_size):
            yield tensor[i:i + batch_size]
    else:
        for i in range(0, len(tensors[0]), batch_size):
            yield tuple(x[i:i + batch_size] for x in tensors)


def shuffle(*arrays, **kwargs):
    require_indices = kwargs.get('indices', False)
    if len(set(len(x) for x in arrays)) != 1:
        raise ValueError('All inputs to shuffle must have '
                         'the same length.')
    shuffle_indices = np.arange(len(arrays[0]))
    np.random.shuffle(shuffle_indices)
    if len(arrays) == 1:
        result = arrays[0][shuffle_indices]
    else:
        result = tuple(x[shuffle_indices] for x in arrays)
    if require_indices:
        return result, shuffle_indices
    return result


class timer:
    """
    Time context manager for code block
        with timer():
            do something
        timer.get()
    """
    from time import time
    TAPE = [-1]
    NAMED_TAPE = {}

    @staticmethod
    def dict(select_keys=None):
        hint = "|"
        for key, value in timer.NAMED_TAPE.items():
            hint = hint + f"{key}:{value:.2f}|"
        return hint

    @staticmethod
    def zero(select_keys=None):
        for key in timer.NAMED_TAPE:
            timer.NAMED_TAPE[key] = 0

    def __init__(self, tape=None, **kwargs):
        if kwargs.get('name'):
            timer.NAMED_TAPE[kwargs['name']] = timer.NAMED_TAPE.get(kwargs['name'], 0.)
            self.named = kwargs['name']
        else:
            self.named = False
            self.tape = tape or timer.TAPE

    def __enter__(self):
        self.start = timer.time()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.named:
            timer.NAMED_TAPE[self.named] += timer.time() - self.start
        else:
            self.tape.append(timer.time() - self.start)


# ====================Metrics==============================
# =========================================================
def RecallPrecision_ATk(test_data, r, k):
    right_pred = r[:, :k].sum(1)
    precis_n = k
    recall_n = np.array([len(test_data[i]) for i in range(len(test_data))])
    recall = np.sum(right_pred / recall_n)
    precis = np.sum(right_pred) / precis_n
    return {'recall': recall, 'precision': precis}


def NDCGatK_r(test_data, r, k):
    assert len(r) == len(test_data)
    pred_data = r[:, :k]
    test_matrix = np.zeros((len(pred_data), k))
    for i, items in enumerate(test_data):
        length = k if k <= len(items) else len(items)
        test_matrix[i, :length] = 1
    max_r = test_matrix
    idcg = np.sum(max_r * 1. / np.log2(np.arange(2, k + 2)), axis=1)
    dcg = pred_data * (1. / np.log2(np.arange(2, k + 2)))
    dcg = np.sum(dcg, axis=1)
    idcg[idcg == 0.] = 1.
    ndcg = dcg / idcg
    ndcg[np.isnan(ndcg)] = 0.
    return np.sum(ndcg)


def getLabel(test_data, pred_data):
    r = []
    for i in range(len(test_data)):
        groundTrue = test_data[i]
        predictTopK = pred_data[i]
        pred = list(map(lambda x: x in groundTrue, predictTopK))
        pred = np.array(pred).astype("float")
        r.append(pred)
    return np.array(r).astype('float')
