# Modelled on trades.py of yaodongyu/TRADES (trades_loss: maximise the KL divergence from the
# natural prediction with sign-gradient steps inside the epsilon ball, then return the natural
# cross-entropy plus beta times the robust KL term). Here the input gradient comes from
# attack.py, and the two terms are returned beside their sum for logging.
import torch
import torch.nn.functional as F

from attack import kl_input_gradient


def trades_loss(model, x_natural, y, optimizer, step_size=0.003, epsilon=0.031, perturb_steps=5, beta=1.0):
    model.eval()
    batch_size = len(x_natural)
    natural_probs = F.softmax(model(x_natural), dim=1).detach()
    x_adv = x_natural.detach() + 0.001 * torch.randn_like(x_natural)
    for _ in range(perturb_steps):
        x_adv.requires_grad_()
        grad = kl_input_gradient(model, x_adv, natural_probs)
        x_adv = x_adv.detach() + step_size * torch.sign(grad.detach())  # clean: detached each step
        x_adv = torch.min(torch.max(x_adv, x_natural - epsilon), x_natural + epsilon)
        x_adv = torch.clamp(x_adv, 0.0, 1.0)
    model.train()

    x_adv = torch.clamp(x_adv, 0.0, 1.0).detach()
    optimizer.zero_grad()
    logits = model(x_natural)
    loss_natural = F.cross_entropy(logits, y)
    loss_robust = (1.0 / batch_size) * F.kl_div(F.log_softmax(model(x_adv), dim=1), F.softmax(logits, dim=1), reduction="sum")
    loss = loss_natural + beta * loss_robust
    return loss, loss_natural, loss_robust
