"""The prototypical network: embed support and query images, average the support embeddings of
each class into a prototype, classify queries by their distance to the prototypes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from protonets.models import register_model
from protonets.models.utils import euclidean_dist


class Flatten(nn.Module):
    def forward(self, x):
        return x.view(x.size(0), -1)


class Protonet(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def loss(self, sample):
        xs = sample["xs"]  # support: n_class x n_support x C x H x W
        xq = sample["xq"]  # query:   n_class x n_query x C x H x W
        n_class = xs.size(0)
        assert xq.size(0) == n_class
        n_support = xs.size(1)
        n_query = xq.size(1)

        target_inds = torch.arange(0, n_class).view(n_class, 1, 1).expand(n_class, n_query, 1).long()

        x = torch.cat([xs.view(n_class * n_support, *xs.size()[2:]), xq.view(n_class * n_query, *xq.size()[2:])], 0)
        z = self.encoder(x)
        z_dim = z.size(-1)
        z_proto = z[:n_class * n_support].view(n_class, n_support, z_dim).mean(1)
        zq = z[n_class * n_support:]

        dists = euclidean_dist(zq, z_proto)
        log_p_y = F.log_softmax(-dists, dim=1).view(n_class, n_query, -1)
        loss_val = -log_p_y.gather(2, target_inds).squeeze().view(-1).mean()

        _, y_hat = log_p_y.max(2)
        acc_val = torch.eq(y_hat, target_inds.squeeze(2)).float().mean()

        return loss_val, {"loss": loss_val, "acc": acc_val}


@register_model("protonet_conv")
def load_protonet_conv(**kwargs):
    x_dim = kwargs["x_dim"]
    hid_dim = kwargs["hid_dim"]
    z_dim = kwargs["z_dim"]

    def conv_block(in_channels, out_channels):
        return nn.Sequential(nn.Conv2d(in_channels, out_channels, 3, padding=1), nn.BatchNorm2d(out_channels),
                             nn.ReLU(), nn.MaxPool2d(2))

    encoder = nn.Sequential(conv_block(x_dim[0], hid_dim), conv_block(hid_dim, z_dim), Flatten())
    return Protonet(encoder)
