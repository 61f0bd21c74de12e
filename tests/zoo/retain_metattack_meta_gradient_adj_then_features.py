# Source: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/1
# Shape: Metattack's meta-gradient step: the inner training unrolls the GCN weights with autograd.grad(create_graph=True) so that the attack loss can be differentiated through training, then takes the attack loss's gradient w.r.t. the adjacency perturbation with retain_graph=True because the gradient w.r.t. the feature perturbation goes through the same graph right after; each perturbation restarts from fresh weights, so nothing crosses the outer loop.
# Verdict: clean
import torch
import torch.nn.functional as F


def normalize_adj(adj):
    adj = adj + torch.eye(adj.size(0))
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    return d_inv_sqrt.unsqueeze(1) * adj * d_inv_sqrt.unsqueeze(0)


class Metattack:
    def __init__(self, nnodes, nfeat, nhid, nclass, train_iters=20, lr=0.1, momentum=0.9):
        self.shapes = [(nfeat, nhid), (nhid, nclass)]
        self.train_iters, self.lr, self.momentum = train_iters, lr, momentum
        self.adj_changes = torch.zeros(nnodes, nnodes, requires_grad=True)
        self.feature_changes = torch.zeros(nnodes, nfeat, requires_grad=True)

    def _initialize(self):
        self.weights = [(torch.randn(*shape) * shape[0] ** -0.5).requires_grad_() for shape in self.shapes]
        self.w_velocities = [torch.zeros(*shape) for shape in self.shapes]

    def get_modified_adj(self, ori_adj):
        sym = self.adj_changes + self.adj_changes.t()
        return torch.clamp(ori_adj + sym - 2 * ori_adj * sym.clamp(0, 1), 0, 1)

    def forward(self, features, adj_norm):
        hidden = torch.relu(adj_norm @ features @ self.weights[0])
        return F.log_softmax(adj_norm @ hidden @ self.weights[1], dim=1)

    def inner_train(self, features, adj_norm, idx_train, labels):
        self._initialize()
        for j in range(self.train_iters):
            output = self.forward(features, adj_norm)
            loss_labeled = F.nll_loss(output[idx_train], labels[idx_train])
            weight_grads = torch.autograd.grad(loss_labeled, self.weights, create_graph=True)
            self.w_velocities = [self.momentum * v + g for v, g in zip(self.w_velocities, weight_grads)]
            self.weights = [w - self.lr * v for w, v in zip(self.weights, self.w_velocities)]

    def get_meta_grad(self, features, adj_norm, idx_unlabeled, labels_self_training):
        output = self.forward(features, adj_norm)
        attack_loss = F.nll_loss(output[idx_unlabeled], labels_self_training[idx_unlabeled])
        adj_grad = torch.autograd.grad(attack_loss, self.adj_changes, retain_graph=True)[0]
        feature_grad = torch.autograd.grad(attack_loss, self.feature_changes)[0]
        return adj_grad, feature_grad

    def attack(self, ori_features, ori_adj, labels, idx_train, idx_unlabeled, labels_self_training, n_perturbations):
        for i in range(n_perturbations):
            modified_adj = self.get_modified_adj(ori_adj)
            modified_features = ori_features + self.feature_changes
            adj_norm = normalize_adj(modified_adj)
            self.inner_train(modified_features, adj_norm, idx_train, labels)
            adj_grad, feature_grad = self.get_meta_grad(modified_features, adj_norm, idx_unlabeled, labels_self_training)
            with torch.no_grad():
                adj_meta_score = adj_grad * (-2 * modified_adj + 1)
                feature_meta_score = feature_grad * (-2 * ori_features.sign() + 1)
                if adj_meta_score.max() >= feature_meta_score.max():
                    row, col = divmod(int(adj_meta_score.argmax()), ori_adj.size(0))
                    self.adj_changes[row, col] += -2 * modified_adj[row, col] + 1
                else:
                    row, col = divmod(int(feature_meta_score.argmax()), ori_features.size(1))
                    self.feature_changes[row, col] += -2 * ori_features[row, col].sign() + 1
        return self.get_modified_adj(ori_adj).detach(), (ori_features + self.feature_changes).detach()


if __name__ == "__main__":
    n, nfeat = 40, 12
    adj = (torch.rand(n, n) > 0.9).float()
    adj = ((adj + adj.t()) > 0).float()
    labels = torch.randint(0, 3, (n,))
    attacker = Metattack(n, nfeat, 16, 3, train_iters=5)
    attacker.attack(torch.randn(n, nfeat), adj, labels, torch.arange(15), torch.arange(15, n), labels, n_perturbations=3)
