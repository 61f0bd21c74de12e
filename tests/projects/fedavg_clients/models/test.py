import torch
import torch.nn.functional as F


@torch.no_grad()
def test_img(net, data, bs=64):
    net.eval()
    x, y = data
    test_loss = 0
    correct = 0
    for i in range(0, len(y), bs):
        log_probs = net(x[i:i + bs])
        test_loss += F.cross_entropy(log_probs, y[i:i + bs], reduction="sum")
        correct += (log_probs.argmax(1) == y[i:i + bs]).sum()
    n = len(y)
    return 100.0 * correct / n, test_loss / n
