# Source: https://github.com/huggingface/trl/pull/234
# Shape: an RLHF PPO trainer scores queries and responses in mini-batches with a forward pass decorated with torch.no_grad(), appending log-probabilities, values and optionally the full logits to lists before concatenating them; the memory concern was the size of the logits, not a graph: the optimisation epochs recompute log-probabilities with grad and log floats only.
# Verdict: clean
import torch


class PPOTrainerLite:
    def __init__(self, policy, ref_policy, optimizer, mini_batch_size=4, ppo_epochs=4, cliprange=0.2, kl_coef=0.1):
        self.policy = policy
        self.ref_policy = ref_policy
        self.optimizer = optimizer
        self.mini_batch_size = mini_batch_size
        self.ppo_epochs = ppo_epochs
        self.cliprange = cliprange
        self.kl_coef = kl_coef

    @staticmethod
    def _token_logprobs(logits, input_ids):
        return torch.log_softmax(logits[:, :-1], dim=-1).gather(2, input_ids[:, 1:, None]).squeeze(-1)

    @torch.no_grad()
    def batched_forward_pass(self, model, queries, responses, return_logits=False):
        all_logprobs, all_values, all_logits = [], [], []
        for i in range(0, len(queries), self.mini_batch_size):
            input_ids = torch.cat([queries[i:i + self.mini_batch_size], responses[i:i + self.mini_batch_size]], dim=1)
            logits, values = model(input_ids)
            all_logprobs.append(self._token_logprobs(logits, input_ids))
            all_values.append(values[:, :-1])
            if return_logits:
                all_logits.append(logits)
        logits_out = torch.cat(all_logits) if return_logits else None
        return torch.cat(all_logprobs), torch.cat(all_values), logits_out

    def step(self, queries, responses, scores):
        old_logprobs, old_values, _ = self.batched_forward_pass(self.policy, queries, responses)
        ref_logprobs, _, _ = self.batched_forward_pass(self.ref_policy, queries, responses)
        rewards = scores[:, None] - self.kl_coef * (old_logprobs - ref_logprobs)
        advantages = rewards - old_values
        input_ids = torch.cat([queries, responses], dim=1)
        stats = []
        for _ in range(self.ppo_epochs):
            logits, values = self.policy(input_ids)
            logprobs = self._token_logprobs(logits, input_ids)
            ratio = torch.exp(logprobs - old_logprobs)
            clipped = torch.clamp(ratio, 1 - self.cliprange, 1 + self.cliprange)
            pg_loss = torch.max(-advantages * ratio, -advantages * clipped).mean()
            vf_loss = ((values[:, :-1] - rewards) ** 2).mean()
            loss = pg_loss + 0.1 * vf_loss
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            stats.append({"pg_loss": pg_loss.item(), "vf_loss": vf_loss.item()})
        return stats
