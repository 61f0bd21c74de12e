# Source: https://github.com/huggingface/transformers/blob/1607444705841ea5084ea2c37b22950175c7c84a/examples/research_projects/distillation/distiller.py
# Shape: Distiller._update_loss_stats adds the attached total distillation loss to self.total_loss_epoch (kept for the tqdm "Avg_cum_loss" postfix) without .item(), so the running epoch sum chains every step's student graph until end_epoch.
# Verdict: leak
import time
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyMaskedLM(nn.Module):
    def __init__(self, vocab_size=120, dim=48, n_layers=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(dim, 4, dim * 2, dropout=0.0, batch_first=True)
                                     for _ in range(n_layers)])
        self.vocab_projector = nn.Linear(dim, vocab_size)

    def forward(self, input_ids, attention_mask=None):
        hidden_states = [self.embeddings(input_ids)]
        pad_mask = attention_mask == 0 if attention_mask is not None else None
        for layer in self.layers:
            hidden_states.append(layer(hidden_states[-1], src_key_padding_mask=pad_mask))
        return self.vocab_projector(hidden_states[-1]), tuple(hidden_states)


class TensorboardStub:
    def __init__(self):
        self.scalars = []

    def add_scalar(self, tag, scalar_value, global_step):
        self.scalars.append((tag, float(scalar_value), global_step))


class Distiller:
    def __init__(self, params, dataloader, student, teacher):
        self.params = params
        self.dataloader = dataloader
        self.student = student
        self.teacher = teacher
        self.is_master = True
        self.multi_gpu = False
        self.fp16 = False
        self.mlm = True
        self.temperature = params.temperature
        self.alpha_ce = params.alpha_ce
        self.alpha_mlm = params.alpha_mlm
        self.alpha_cos = params.alpha_cos

        self.epoch = 0
        self.n_iter = 0
        self.n_total_iter = 0
        self.n_sequences_epoch = 0
        self.total_loss_epoch = 0
        self.last_loss = 0
        self.last_loss_ce = 0
        self.last_loss_mlm = 0
        self.last_loss_cos = 0
        self.last_log = 0

        self.ce_loss_fct = nn.KLDivLoss(reduction="batchmean")
        self.lm_loss_fct = nn.CrossEntropyLoss(ignore_index=-100)
        self.cosine_loss_fct = nn.CosineEmbeddingLoss(reduction="mean")
        self.optimizer = torch.optim.AdamW(student.parameters(), lr=params.learning_rate, eps=1e-6)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda step: 1.0)
        self.tensorboard = TensorboardStub()

    def prepare_batch_mlm(self, batch):
        token_ids, lengths = batch
        attn_mask = (torch.arange(token_ids.size(1))[None, :] < lengths[:, None]).long()
        g = torch.Generator().manual_seed(int(lengths.sum()))
        pred_mask = (torch.rand(token_ids.shape, generator=g) < self.params.mlm_mask_prop) & attn_mask.bool()
        mlm_labels = token_ids.masked_fill(~pred_mask, -100)
        token_ids = token_ids.masked_fill(pred_mask, self.params.mask_token_id)
        return token_ids, attn_mask, mlm_labels

    def train_epoch(self):
        self.last_log = time.time()
        self.student.train()
        self.teacher.eval()
        for batch in self.dataloader:
            token_ids, attn_mask, lm_labels = self.prepare_batch_mlm(batch=batch)
            self.step(input_ids=token_ids, attention_mask=attn_mask, lm_labels=lm_labels)
            postfix = {"Last_loss": f"{self.last_loss:.2f}", "Avg_cum_loss": f"{self.total_loss_epoch / self.n_iter:.2f}"}
        return postfix

    def train(self):
        for _ in range(self.params.n_epoch):
            self.train_epoch()
            self.end_epoch()

    def step(self, input_ids, attention_mask, lm_labels):
        s_logits, s_hidden_states = self.student(input_ids=input_ids, attention_mask=attention_mask)
        with torch.no_grad():
            t_logits, t_hidden_states = self.teacher(input_ids=input_ids, attention_mask=attention_mask)
        assert s_logits.size() == t_logits.size()

        mask = attention_mask.unsqueeze(-1).expand_as(s_logits).bool()
        s_logits_slct = torch.masked_select(s_logits, mask).view(-1, s_logits.size(-1))
        t_logits_slct = torch.masked_select(t_logits, mask).view(-1, s_logits.size(-1))

        loss_ce = (
            self.ce_loss_fct(
                F.log_softmax(s_logits_slct / self.temperature, dim=-1),
                F.softmax(t_logits_slct / self.temperature, dim=-1),
            )
            * (self.temperature) ** 2
        )
        loss = self.alpha_ce * loss_ce

        loss_mlm = self.lm_loss_fct(s_logits.view(-1, s_logits.size(-1)), lm_labels.view(-1))
        loss = loss + self.alpha_mlm * loss_mlm

        s_hid = s_hidden_states[-1]
        t_hid = t_hidden_states[-1]
        hid_mask = attention_mask.unsqueeze(-1).expand_as(s_hid).bool()
        dim = s_hid.size(-1)
        s_hid_slct = torch.masked_select(s_hid, hid_mask).view(-1, dim)
        t_hid_slct = torch.masked_select(t_hid, hid_mask).view(-1, dim)
        target = s_hid_slct.new(s_hid_slct.size(0)).fill_(1)
        loss_cos = self.cosine_loss_fct(s_hid_slct, t_hid_slct, target)
        loss = loss + self.alpha_cos * loss_cos

        self._update_loss_stats(loss, loss_ce, loss_mlm, loss_cos)
        self.optimize(loss)
        self.n_sequences_epoch += input_ids.size(0)

    def _update_loss_stats(self, loss, loss_ce, loss_mlm, loss_cos):
        self.total_loss_epoch += loss  # TLK101
        self.last_loss = loss.item()
        self.last_loss_ce = loss_ce.item()
        self.last_loss_mlm = loss_mlm.item()
        self.last_loss_cos = loss_cos.item()

    def optimize(self, loss):
        if (loss != loss).data.any():
            raise RuntimeError("NaN detected")
        if self.params.gradient_accumulation_steps > 1:
            loss = loss / self.params.gradient_accumulation_steps
        loss.backward()
        self.iter()
        if self.n_iter % self.params.gradient_accumulation_steps == 0:
            nn.utils.clip_grad_norm_(self.student.parameters(), self.params.max_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.scheduler.step()

    def iter(self):
        self.n_iter += 1
        self.n_total_iter += 1
        if self.n_total_iter % self.params.log_interval == 0:
            self.log_tensorboard()
            self.last_log = time.time()

    def log_tensorboard(self):
        self.tensorboard.add_scalar("losses/cum_avg_loss_epoch", self.total_loss_epoch / self.n_iter, self.n_total_iter)
        self.tensorboard.add_scalar("losses/loss", self.last_loss, self.n_total_iter)
        self.tensorboard.add_scalar("losses/loss_ce", self.last_loss_ce, self.n_total_iter)
        self.tensorboard.add_scalar("losses/loss_mlm", self.last_loss_mlm, self.n_total_iter)
        self.tensorboard.add_scalar("losses/loss_cos", self.last_loss_cos, self.n_total_iter)

    def end_epoch(self):
        self.tensorboard.add_scalar("epoch/loss", self.total_loss_epoch / self.n_iter, self.epoch)
        self.epoch += 1
        self.n_sequences_epoch = 0
        self.n_iter = 0
        self.total_loss_epoch = 0


def make_batches(n):
    return list(range(n))


def mlm_dataloader(seeds, batch_size=6, max_len=24, vocab_size=120):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        lengths = torch.randint(max_len // 2, max_len + 1, (batch_size,), generator=g)
        token_ids = torch.randint(5, vocab_size, (batch_size, max_len), generator=g)
        yield token_ids, lengths


def run(batches):
    torch.manual_seed(0)
    params = SimpleNamespace(n_epoch=1, temperature=2.0, alpha_ce=5.0, alpha_mlm=2.0, alpha_cos=1.0,
                             mlm_mask_prop=0.15, mask_token_id=4, learning_rate=5e-4, max_grad_norm=5.0,
                             gradient_accumulation_steps=1, log_interval=500)
    teacher = TinyMaskedLM(dim=48, n_layers=3)
    student = TinyMaskedLM(dim=48, n_layers=2)
    distiller = Distiller(params=params, dataloader=mlm_dataloader(batches), student=student, teacher=teacher)
    postfix = distiller.train_epoch()
    return distiller.n_total_iter, postfix


if __name__ == "__main__":
    print(run(make_batches(4)))
