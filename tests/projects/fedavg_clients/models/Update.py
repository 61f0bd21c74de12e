import torch
import torch.nn as nn


class LocalUpdate:
    """One client's local SGD; returns its model difference and its mean loss."""

    def __init__(self, args, data, idxs, logger):
        self.args = args
        self.loss_func = nn.CrossEntropyLoss()
        self.x, self.y = data[0][idxs], data[1][idxs]
        self.logger = logger

    def batches(self):
        bs = self.args.local_bs
        for i in range(0, min(len(self.y), bs * self.args.local_steps), bs):
            yield self.x[i:i + bs], self.y[i:i + bs]

    def update_weights(self, net):
        net.train()
        start = {k: v.clone() for k, v in net.state_dict().items()}
        optimizer = torch.optim.SGD(net.parameters(), lr=self.args.lr, momentum=0.5)
        epoch_loss = []
        for _ in range(self.args.local_ep):
            batch_loss = []
            for images, labels in self.batches():
                net.zero_grad()
                log_probs = net(images)
                loss = self.loss_func(log_probs, labels)
                loss.backward()
                optimizer.step()
                self.logger.add_scalar("client_loss", loss)  # expect: TLK101 (logger.py)
                batch_loss.append(loss.item())
            epoch_loss.append(sum(batch_loss) / len(batch_loss))
        # model difference w.r.t. the global weights this round started from
        delta = {k: p - start[k] for k, p in net.named_parameters()}
        return delta, sum(epoch_loss) / len(epoch_loss)
