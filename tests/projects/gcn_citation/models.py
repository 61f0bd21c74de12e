import torch.nn as nn
import torch.nn.functional as F

from layers import GraphConvolution


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


class SGC(nn.Module):
    """Simplified graph convolution: K propagation steps then a linear classifier."""

    def __init__(self, nfeat, nhid, nclass, dropout, k=2):
        super(SGC, self).__init__()
        self.k = k
        self.fc = nn.Linear(nfeat, nclass)

    def forward(self, x, adj):
        for _ in range(self.k):
            x = adj @ x
        return F.log_softmax(self.fc(x), dim=1)


MODELS = {
    'gcn': GCN,
    'sgc': SGC,
}
