# Source: https://github.com/verl-project/verl/issues/7166
# Shape: RL actor engine: forward_step returns the PPO loss and an output dict whose model_output (log_probs, entropy) is still attached; forward_backward_batch backwards each micro-batch and appends the output dict to output_lst, and with entropy_coeff 0 the entropy graph (full-vocabulary softmax saved for backward) is never traversed, so every micro-batch's graph stays pinned until the mini-batch ends.
# Verdict: leak
import torch
import torch.nn.functional as F


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum().clamp(min=1)


def split_micro_batches(mini_batch, micro_batch_size):
    total = mini_batch["input_ids"].size(0)
    for start in range(0, total, micro_batch_size):
        yield {k: v[start:start + micro_batch_size] for k, v in mini_batch.items()}


class ActorEngine:
    def __init__(self, policy, optimizer, clip_ratio=0.2, entropy_coeff=0.0, micro_batch_size=4, max_grad_norm=1.0):
        self.policy = policy
        self.optimizer = optimizer
        self.clip_ratio = clip_ratio
        self.entropy_coeff = entropy_coeff
        self.micro_batch_size = micro_batch_size
        self.max_grad_norm = max_grad_norm

    def forward_step(self, micro_batch):
        logits = self.policy(micro_batch["input_ids"])
        logp_all = F.log_softmax(logits.float(), dim=-1)
        log_probs = logp_all.gather(-1, micro_batch["responses"].unsqueeze(-1)).squeeze(-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        mask = micro_batch["response_mask"]
        ratio = torch.exp(log_probs - micro_batch["old_log_probs"])
        adv = micro_batch["advantages"]
        pg_losses = -torch.min(ratio * adv, ratio.clamp(1 - self.clip_ratio, 1 + self.clip_ratio) * adv)
        policy_loss = masked_mean(pg_losses, mask)
        if self.entropy_coeff:
            policy_loss = policy_loss - self.entropy_coeff * masked_mean(entropy, mask)
        output = {
            "model_output": {"log_probs": log_probs, "entropy": entropy},
            "loss": policy_loss.detach().item(),
            "metrics": {"clipfrac": ((ratio - 1).abs() > self.clip_ratio).float().mean().item()},
        }
        return policy_loss, output

    def forward_backward_batch(self, mini_batch):
        output_lst = []
        micro_batches = list(split_micro_batches(mini_batch, self.micro_batch_size))
        for micro_batch in micro_batches:
            policy_loss, output = self.forward_step(micro_batch)
            (policy_loss / len(micro_batches)).backward()
            output_lst.append(output)  # TLK102
        return output_lst

    def update_actor(self, mini_batches):
        stats = []
        for mini_batch in mini_batches:
            self.optimizer.zero_grad()
            outputs = self.forward_backward_batch(mini_batch)
            grad_norm = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.optimizer.step()
            mean_entropy = torch.cat([o["model_output"]["entropy"].flatten() for o in outputs]).mean().item()
            stats.append({
                "actor/pg_loss": sum(o["loss"] for o in outputs) / len(outputs),
                "actor/entropy": mean_entropy,
                "actor/grad_norm": float(grad_norm),
            })
        return stats
