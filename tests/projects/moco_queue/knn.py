"""kNN monitor: classify test images by their nearest neighbours in a bank of features of the
memory (training) images, as the MoCo CIFAR-10 demo does after each epoch."""
import torch
import torch.nn.functional as F


def knn_predict(feature, feature_bank, feature_labels, classes, knn_k, knn_t):
    sim_matrix = torch.mm(feature, feature_bank)
    sim_weight, sim_indices = sim_matrix.topk(k=knn_k, dim=-1)
    sim_labels = torch.gather(feature_labels.expand(feature.size(0), -1), dim=-1, index=sim_indices)
    sim_weight = (sim_weight / knn_t).exp()
    one_hot_label = torch.zeros(feature.size(0) * knn_k, classes)
    one_hot_label = one_hot_label.scatter(dim=-1, index=sim_labels.view(-1, 1), value=1.0)
    pred_scores = torch.sum(one_hot_label.view(feature.size(0), -1, classes) * sim_weight.unsqueeze(dim=-1), dim=1)
    return pred_scores.argsort(dim=-1, descending=True)


def build_feature_bank(net, memory_loader):
    feature_bank, labels_bank = [], []
    for data, target in memory_loader:
        feature = F.normalize(net(data), dim=1)
        feature_bank.append(feature)  # expect: TLK102
        labels_bank.append(target)
    return torch.cat(feature_bank, dim=0).t().contiguous(), torch.cat(labels_bank)


def knn_monitor(net, memory_loader, test_loader, classes, knn_k=5, knn_t=0.1):
    net.eval()
    feature_bank, feature_labels = build_feature_bank(net, memory_loader)
    total_top1, total_num = 0.0, 0
    with torch.no_grad():
        for data, target in test_loader:
            feature = F.normalize(net(data), dim=1)
            pred_labels = knn_predict(feature, feature_bank, feature_labels, classes, knn_k, knn_t)
            total_num += data.size(0)
            total_top1 += (pred_labels[:, 0] == target).float().sum().item()
    net.train()
    return total_top1 / total_num * 100
