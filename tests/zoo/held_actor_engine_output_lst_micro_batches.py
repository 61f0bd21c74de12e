# Source: https://github.com/verl-project/verl/pull/6699
# Shape: an RL actor engine runs forward_step and backward per micro-batch and appends each micro-batch's model_output dict (log-probs and an entropy tensor that the loss does not use) to output_lst until the whole mini-batch is done; the entropy graph is never backwarded, so its saved activations stay alive once per micro-batch.
# Verdict: leak
import torch
import torch.nn.functional as F


def ppo_policy_loss(model_output, data, clip_ratio=0.2, entropy_coeff=0.0):
    ratio = torch.exp(model_output["log_probs"] - data["old_log_probs"])
    adv = data["advantages"]
    pg_loss = -torch.min(ratio * adv, ratio.clamp(1 - clip_ratio, 1 + clip_ratio) * adv).mean()
    loss = pg_loss
    if entropy_coeff:
        loss = loss - entropy_coeff * model_output["entropy"].mean()
    metrics = {"actor/pg_loss": pg_loss.detach(), "actor/ratio_mean": ratio.mean().item()}
    return loss, metrics


class LMHeadEngine:
    def __init__(self, module, optimizer, grad_clip=1.0):
        self.module = module
        self.optimizer = optimizer
        self.grad_clip = grad_clip

    def forward_step(self, micro_batch, loss_function):
        logits = self.module(micro_batch["input_ids"])
        logp_all = F.log_softmax(logits.float(), dim=-1)
        log_probs = logp_all.gather(-1, micro_batch["responses"].unsqueeze(-1)).squeeze(-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        model_output = {"log_probs": log_probs, "entropy": entropy}
        loss, metrics = loss_function(model_output, micro_batch)
        return loss, model_output, metrics

    def forward_backward_batch(self, micro_batches, loss_function):
        output_lst = []
        for micro_batch in micro_batches:
            loss, model_output, metrics = self.forward_step(micro_batch, loss_function)
            (loss / len(micro_batches)).backward()
            output_lst.append({"model_output": model_output, "loss": loss, "metrics": metrics})  # TLK102
        return output_lst

    def update_actor(self, mini_batches, loss_function=ppo_policy_loss):
        stats = []
        for micro_batches in mini_batches:
            self.optimizer.zero_grad()
            outputs = self.forward_backward_batch(micro_batches, loss_function)
            torch.nn.utils.clip_grad_norm_(self.module.parameters(), self.grad_clip)
            self.optimizer.step()
            stats.append(sum(float(o["metrics"]["actor/pg_loss"]) for o in outputs) / len(outputs))
        return stats
