# Source: https://github.com/pytorch/pytorch/issues/40005
# Shape: BERT distillation backwards the layer-matching KL loss and then the task loss, both with retain_graph=True; the first is needed (the task loss shares the student graph), the second is not and keeps the whole student graph alive into the next batch
# Verdict: leak
import torch
import torch.nn.functional as F

kl = torch.nn.KLDivLoss(reduction="batchmean")
for batch in train_loader:
    with torch.no_grad():
        t_out = teacher(**batch, output_hidden_states=True)
    s_out = student(**batch, output_hidden_states=True)

    layer_loss = 0.0
    for s_idx, t_idx in layer_map.items():
        layer_loss = layer_loss + kl(
            F.log_softmax(s_out.hidden_states[s_idx], dim=-1),
            F.softmax(t_out.hidden_states[t_idx], dim=-1),
        )
    task_loss = F.cross_entropy(s_out.logits, batch["labels"])

    optimizer.zero_grad()
    layer_loss.backward(retain_graph=True)
    task_loss.backward(retain_graph=True)  # TLK201
    optimizer.step()
    scheduler.step()
