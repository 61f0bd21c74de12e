'''
Datasets for LightGCN.  The real loaders read gowalla / yelp2018 / amazon-book
text files; this one synthesises a clustered implicit-feedback matrix instead.
'''
import numpy as np
import torch
from torch.utils.data import Dataset

import world


class BasicDataset(Dataset):
    def __init__(self):
        print("init dataset")

    @property
    def n_users(self):
        raise NotImplementedError

    @property
    def m_items(self):
        raise NotImplementedError

    @property
    def trainDataSize(self):
        raise NotImplementedError

    @property
    def testDict(self):
        raise NotImplementedError

    @property
    def allPos(self):
        raise NotImplementedError

    def getUserPosItems(self, users):
        raise NotImplementedError

    def getSparseGraph(self):
        raise NotImplementedError


class SyntheticLoader(BasicDataset):
    """Users and items are split into a few taste clusters; a user interacts
    mostly with items of its own cluster."""

    def __init__(self, n_users=None, m_items=None, n_clusters=4, per_user=10, seed=0):
        super().__init__()
        rng = np.random.RandomState(seed)
        self.n_user = n_users or world.n_users
        self.m_item = m_items or world.m_items
        user_c = rng.randint(0, n_clusters, self.n_user)
        item_c = rng.randint(0, n_clusters, self.m_item)
        train_u, train_i, test = [], [], {}
        for u in range(self.n_user):
            same = np.where(item_c == user_c[u])[0]
            other = np.where(item_c != user_c[u])[0]
            picks = np.concatenate([rng.choice(same, min(len(same), per_user - 2), replace=False),
                                    rng.choice(other, 2, replace=False)])
            rng.shuffle(picks)
            test[u] = [int(picks[0])]
            for i in picks[1:]:
                train_u.append(u)
                train_i.append(int(i))
        self.trainUser = np.array(train_u)
        self.trainItem = np.array(train_i)
        self.__testDict = test
        self._allPos = [self.trainItem[self.trainUser == u] for u in range(self.n_user)]
        self.Graph = None
        print(f"{len(self.trainUser)} interactions for training")

    @property
    def n_users(self):
        return self.n_user

    @property
    def m_items(self):
        return self.m_item

    @property
    def trainDataSize(self):
        return len(self.trainUser)

    @property
    def testDict(self):
        return self.__testDict

    @property
    def allPos(self):
        return self._allPos

    def getUserPosItems(self, users):
        return [self._allPos[u] for u in users]

    def getSparseGraph(self):
        """Symmetrically normalised bipartite adjacency D^-1/2 A D^-1/2."""
        if self.Graph is None:
            n = self.n_users + self.m_items
            rows = np.concatenate([self.trainUser, self.trainItem + self.n_users])
            cols = np.concatenate([self.trainItem + self.n_users, self.trainUser])
            deg = np.bincount(rows, minlength=n).astype(np.float32)
            d_inv = np.power(np.maximum(deg, 1.0), -0.5)
            vals = d_inv[rows] * d_inv[cols]
            index = torch.tensor(np.stack([rows, cols]), dtype=torch.long)
            self.Graph = torch.sparse_coo_tensor(index, torch.tensor(vals, dtype=torch.float32),
                                                 (n, n), check_invariants=False).coalesce().to(world.device)
        return self.Graph
