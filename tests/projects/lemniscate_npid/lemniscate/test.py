import time

import torch

from .lib.utils import AverageMeter


def NN(epoch, net, lemniscate, trainloader, testloader, recompute_memory=0):
    """Weighted nearest-neighbour accuracy of the test set against the memory bank."""
    net.eval()
    net_time = AverageMeter()
    cls_time = AverageMeter()
    correct = 0.
    total = 0

    trainFeatures = lemniscate.memory.t()
    trainLabels = torch.LongTensor(trainloader.dataset.train_labels)

    end = time.time()
    with torch.no_grad():
        if recompute_memory:
            temploader = torch.utils.data.DataLoader(trainloader.dataset, batch_size=100, shuffle=False)
            trainFeatures = trainFeatures.clone()
            for batch_idx, (inputs, targets, indexes) in enumerate(temploader):
                batchSize = inputs.size(0)
                features = net(inputs)
                trainFeatures[:, batch_idx * batchSize:batch_idx * batchSize + batchSize] = features.t()

        for batch_idx, (inputs, targets, indexes) in enumerate(testloader):
            batchSize = inputs.size(0)
            features = net(inputs)
            net_time.update(time.time() - end)
            end = time.time()

            dist = torch.mm(features, trainFeatures)

            yd, yi = dist.topk(1, dim=1, largest=True, sorted=True)
            candidates = trainLabels.view(1, -1).expand(batchSize, -1)
            retrieval = torch.gather(candidates, 1, yi)

            retrieval = retrieval.narrow(1, 0, 1).clone().view(-1)

            total += targets.size(0)
            correct += retrieval.eq(targets).sum().item()

            cls_time.update(time.time() - end)
            end = time.time()

    return correct / total
