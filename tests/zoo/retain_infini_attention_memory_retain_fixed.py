# Source: https://github.com/Beomi/InfiniTransformer/issues/2
# Shape: InfiniAttention._update_memory detaches the compressive memory M and normaliser z before carrying them to the next segment, so each training step owns only its own segment graph and needs no retain_graph.
# Verdict: clean
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class InfiniConfig:
    vocab_size: int = 96
    hidden_size: int = 64
    num_attention_heads: int = 4
    segment_len: int = 32
    batch_size: int = 4
    learning_rate: float = 3e-4
    max_grad_norm: float = 1.0
    attention_dropout: float = 0.0


def debug_print(*args):
    pass


class InfiniAttention(nn.Module):
    def __init__(self, config: InfiniConfig):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.attention_dropout = config.attention_dropout
        self.q_proj = nn.Linear(self.hidden_size, self.hidden_size)
        self.k_proj = nn.Linear(self.hidden_size, self.hidden_size)
        self.v_proj = nn.Linear(self.hidden_size, self.hidden_size)
        self.o_proj = nn.Linear(self.hidden_size, self.hidden_size)
        self.beta = nn.Parameter(torch.randn(1))
        self.M = None
        self.z = None

    def forward(self, hidden_states):
        bsz, q_len, _ = hidden_states.size()
        if self.M is None:
            self.M = torch.zeros(bsz, self.num_heads, self.head_dim, self.head_dim)
            self.z = torch.zeros(bsz, self.num_heads, self.head_dim)

        query_states = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)

        memory_output = self._retrieve_from_memory(query_states)
        debug_print("Memory Output Shape:", memory_output.shape)
        # Update memory with current segment's key and value states
        self._update_memory(key_states, value_states)

        attn_output = F.scaled_dot_product_attention(
            query_states, key_states, value_states,
            is_causal=True,
            dropout_p=self.attention_dropout if self.training else 0.0,
        )
        combined_output = self._long_term_injection(attn_output, memory_output)
        combined_output = combined_output.transpose(1, 2).contiguous().view(bsz, q_len, self.hidden_size)
        return self.o_proj(combined_output)

    def _retrieve_from_memory(self, Q):
        # Retrieve context from compressive memory using linear attention (Eq. 3)
        sigma_q = F.elu(Q) + 1
        M_s_1 = torch.matmul(sigma_q, self.M)
        Z_s_1 = torch.matmul(sigma_q, self.z.unsqueeze(-1)) + 1e-8
        return M_s_1 / Z_s_1

    def _update_memory(self, K, V):
        sigma_k = F.elu(K) + 1
        updated_M = self.M + torch.matmul(sigma_k.transpose(-2, -1), V)
        updated_z = self.z + sigma_k.sum(dim=-2)
        self.M, self.z = updated_M.detach(), updated_z.detach()

    def _long_term_injection(self, A_dot, A_mem):
        beta = torch.sigmoid(self.beta)
        return beta * A_mem + (1 - beta) * A_dot


class InfiniBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(config.hidden_size)
        self.self_attn = InfiniAttention(config)
        self.post_attention_layernorm = nn.LayerNorm(config.hidden_size)
        self.mlp = nn.Sequential(nn.Linear(config.hidden_size, 2 * config.hidden_size), nn.GELU(),
                                 nn.Linear(2 * config.hidden_size, config.hidden_size))

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.self_attn(self.input_layernorm(hidden_states))
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class InfiniForCausalLM(nn.Module):
    """The token embeddings and the pre-attention norm come from the base checkpoint and stay frozen."""

    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layer = InfiniBlock(config)
        self.norm = nn.LayerNorm(config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.freeze_base()

    def freeze_base(self):
        for module in (self.embed_tokens, self.layer.input_layernorm):
            for p in module.parameters():
                p.requires_grad_(False)

    def forward(self, input_ids, labels=None):
        hidden_states = self.embed_tokens(input_ids)
        hidden_states = self.norm(self.layer(hidden_states))
        logits = self.lm_head(hidden_states)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return loss, logits


class SegmentedDataset:
    """Splits one long token stream per row into consecutive fixed-length segments."""

    def __init__(self, seeds, config):
        self.seeds = seeds
        self.config = config

    def __iter__(self):
        for seed in self.seeds:
            g = torch.Generator().manual_seed(seed)
            segment = torch.randint(0, self.config.vocab_size, (self.config.batch_size, self.config.segment_len), generator=g)
            yield {"input_ids": segment, "labels": segment.clone()}


def train_step(model, optimizer, batch, config):
    model.train()
    loss, _ = model(batch["input_ids"], labels=batch["labels"])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
    optimizer.step()
    return loss.item()


def make_batches(n):
    return list(range(n))


def run(batches):
    torch.manual_seed(0)
    config = InfiniConfig()
    model = InfiniForCausalLM(config)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=config.learning_rate)
    history = []
    for step, batch in enumerate(SegmentedDataset(batches, config)):
        loss = train_step(model, optimizer, batch, config)
        history.append(loss)
        if step % 100 == 0:
            debug_print(f"step {step} loss {loss:.4f} ppl {math.exp(loss):.2f}")
    return history


if __name__ == "__main__":
    print(run(make_batches(4)))
