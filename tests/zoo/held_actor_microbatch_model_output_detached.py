# Source: https://github.com/verl-project/verl/issues/7166
# Shape: the fixed actor engine: forward_step detaches every tensor of model_output before it goes into the per-micro-batch output list, so output_lst holds plain tensors for the metrics while each micro-batch's graph is freed by its backward.
# Verdict: clean
import torch
import torch.nn.functional as F


def masked_mean(values, mask):
    return (values * mask).sum() / mask.sum().clamp(min=1)


class PPOActor:
    def __init__(self, actor_module, actor_optim, clip_ratio=0.2, micro_batch_size=4):
        self.actor_module = actor_module
        self.actor_optim = actor_optim
        self.clip_ratio = clip_ratio
        self.micro_batch_size = micro_batch_size

    def _forward_micro_batch(self, mb):
        logits = self.actor_module(mb["input_ids"])
        logp_all = F.log_softmax(logits.float(), dim=-1)
        log_probs = logp_all.gather(-1, mb["responses"].unsqueeze(-1)).squeeze(-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        return log_probs, entropy

    def forward_step(self, mb):
        log_probs, entropy = self._forward_micro_batch(mb)
        ratio = torch.exp(log_probs - mb["old_log_probs"])
        adv = mb["advantages"]
        pg = -torch.min(ratio * adv, ratio.clamp(1 - self.clip_ratio, 1 + self.clip_ratio) * adv)
        pg_loss = masked_mean(pg, mb["response_mask"])
        model_output = {"log_probs": log_probs.detach(), "entropy": entropy.detach()}
        return pg_loss, {"model_output": model_output, "loss": pg_loss.item()}

    def update_policy(self, mini_batch):
        self.actor_optim.zero_grad()
        n = mini_batch["input_ids"].size(0)
        chunks = [{k: v[s:s + self.micro_batch_size] for k, v in mini_batch.items()}
                  for s in range(0, n, self.micro_batch_size)]
        output_lst = []
        for mb in chunks:
            pg_loss, output = self.forward_step(mb)
            (pg_loss / len(chunks)).backward()
            output_lst.append(output)
        self.actor_optim.step()
        entropies = torch.cat([o["model_output"]["entropy"].flatten() for o in output_lst])
        return {"pg_loss": sum(o["loss"] for o in output_lst) / len(output_lst), "entropy": entropies.mean().item()}
