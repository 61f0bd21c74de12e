# Modelled on the distributional loss of Kaixhin/Rainbow (agent.py's learn(): the L2 projection
# of Tz onto the support under no_grad, then the cross-entropy -sum(m * log p)), split out of the
# agent into its own module as forks do.
import torch


def project_distribution(pns_a, returns, nonterminals, support, args):
    with torch.no_grad():
        batch_size, atoms = pns_a.shape
        delta_z = (args.V_max - args.V_min) / (atoms - 1)
        Tz = returns.unsqueeze(1) + nonterminals * (args.discount ** args.multi_step) * support.unsqueeze(0)
        Tz = Tz.clamp(min=args.V_min, max=args.V_max)
        b = (Tz - args.V_min) / delta_z
        l, u = b.floor().to(torch.int64), b.ceil().to(torch.int64)
        l[(u > 0) * (l == u)] -= 1
        u[(l < (atoms - 1)) * (l == u)] += 1
        m = pns_a.new_zeros(batch_size, atoms)
        offset = torch.linspace(0, (batch_size - 1) * atoms, batch_size).unsqueeze(1).expand(batch_size, atoms).to(torch.int64)
        m.view(-1).index_add_(0, (l + offset).view(-1), (pns_a * (u.float() - b)).view(-1))
        m.view(-1).index_add_(0, (u + offset).view(-1), (pns_a * (b - l.float())).view(-1))
    return m


def distributional_loss(log_ps_a, m, weights):
    loss = -torch.sum(m * log_ps_a, 1)
    return loss, (weights * loss).mean()
