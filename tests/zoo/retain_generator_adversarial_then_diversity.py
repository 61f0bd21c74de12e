# Source: https://github.com/facebookresearch/pytorch_GAN_zoo/pull/85
# Shape: generator step backwards the adversarial loss with retain_graph=True and then a diversity (GDPP-style) loss computed from the same discriminator features of the same fake batch; the second backward needs the retained graph
# Verdict: clean
import torch


def gdpp_loss(fake_feats, real_feats):
    def eig(feats):
        feats = feats / feats.norm(dim=1, keepdim=True)
        return torch.linalg.eigh(feats.t() @ feats)

    fake_vals, fake_vecs = eig(fake_feats)
    real_vals, real_vecs = eig(real_feats)
    val_term = torch.mean((fake_vals - real_vals) ** 2)
    vec_term = -torch.mean(torch.sum(fake_vecs * real_vecs, dim=0) * real_vals)
    return val_term + vec_term


def generator_step(netG, netD, opt_G, real, z):
    opt_G.zero_grad()
    fake = netG(z)
    pred_fake, fake_feats = netD(fake, get_features=True)
    loss_adv = -pred_fake.mean()
    loss_adv.backward(retain_graph=True)
    with torch.no_grad():
        _, real_feats = netD(real, get_features=True)
    loss_div = gdpp_loss(fake_feats, real_feats)
    loss_div.backward()
    opt_G.step()
    return loss_adv.item(), loss_div.item()


for real in loader:
    z = torch.randn(real.size(0), 512)
    generator_step(netG, netD, opt_G, real, z)
