# Source: https://github.com/tristandeleu/pytorch-maml-rl/pull/13
# Shape: a TRPO-style meta-learner computes the KL gradient once per step with create_graph=True so that its conjugate-gradient Hessian-vector products can differentiate it again; it also appends that flat KL gradient, still attached to its double-backward graph, to self.kl_grad_trace for later diagnostics, so every step's graph of the KL gradient (policy activations included) stays alive.
# Verdict: leak
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters


def conjugate_gradient(f_Ax, b, cg_iters=10, residual_tol=1e-10):
    p, r, x = b.clone(), b.clone(), torch.zeros_like(b)
    rdotr = torch.dot(r, r)
    for _ in range(cg_iters):
        z = f_Ax(p).detach()
        v = rdotr / torch.dot(p, z)
        x += v * p
        r -= v * z
        newrdotr = torch.dot(r, r)
        p = r + (newrdotr / rdotr) * p
        rdotr = newrdotr
        if rdotr.item() < residual_tol:
            break
    return x.detach()


class TRPOLearner:
    def __init__(self, policy, max_kl=1e-2, damping=1e-2):
        self.policy = policy
        self.max_kl, self.damping = max_kl, damping
        self.kl_grad_trace = []

    def kl_divergence(self, obs, old_logits):
        logp = torch.log_softmax(self.policy(obs), -1)
        old_logp = torch.log_softmax(old_logits, -1)
        return (old_logp.exp() * (old_logp - logp)).sum(-1).mean()

    def hessian_vector_product(self, obs, old_logits):
        kl = self.kl_divergence(obs, old_logits)
        grads = torch.autograd.grad(kl, self.policy.parameters(), create_graph=True)
        flat_grad_kl = parameters_to_vector(grads)
        self.kl_grad_trace.append(flat_grad_kl)  # TLK301

        def _product(vector):
            grad_kl_v = torch.dot(flat_grad_kl, vector)
            grad2s = torch.autograd.grad(grad_kl_v, self.policy.parameters(), retain_graph=True)
            return parameters_to_vector(grad2s) + self.damping * vector

        return _product

    def step(self, obs, actions, advantages):
        old_logits = self.policy(obs).detach()
        logp = torch.log_softmax(self.policy(obs), -1).gather(1, actions[:, None]).squeeze(1)
        surrogate = (logp.exp() / logp.exp().detach() * advantages).mean()
        grads = parameters_to_vector(torch.autograd.grad(surrogate, self.policy.parameters()))
        step_dir = conjugate_gradient(self.hessian_vector_product(obs, old_logits), grads)
        shs = 0.5 * torch.dot(step_dir, self.hessian_vector_product(obs, old_logits)(step_dir))
        full_step = step_dir * torch.sqrt(2 * self.max_kl / (shs + 1e-10))
        with torch.no_grad():
            old_params = parameters_to_vector(self.policy.parameters())
            vector_to_parameters(old_params + full_step, self.policy.parameters())
        return surrogate.item()


def train(policy, batches):
    learner = TRPOLearner(policy)
    return [learner.step(obs, actions, adv) for obs, actions, adv in batches], learner
