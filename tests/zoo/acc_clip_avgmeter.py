# Source: https://github.com/moein-shariatnia/OpenAI-CLIP/blob/2b512ce83d21f4cbc535d2569b308473fa0a201c/main.py
# Shape: train_epoch hands the attached contrastive loss to AvgMeter.update (the repo passes loss.item()), and AvgMeter does `self.sum += val * count`, so the meter's running sum chains every batch's image+text encoder graph until the epoch ends.
# Verdict: leak
import torch
from torch import nn
import torch.nn.functional as F


class CFG:
    debug = True
    batch_size = 16
    head_lr = 1e-3
    image_encoder_lr = 1e-4
    text_encoder_lr = 1e-5
    weight_decay = 1e-3
    patience = 1
    factor = 0.8
    epochs = 1
    device = torch.device("cpu")
    image_embedding = 64
    text_embedding = 48
    vocab_size = 200
    max_length = 12
    size = 16
    temperature = 1.0
    projection_dim = 32
    dropout = 0.1


class AvgMeter:
    def __init__(self, name="Metric"):
        self.name = name
        self.reset()

    def reset(self):
        self.avg, self.sum, self.count = [0] * 3

    def update(self, val, count=1):
        self.count += count
        self.sum += val * count
        self.avg = self.sum / self.count

    def __repr__(self):
        text = f"{self.name}: {self.avg:.4f}"
        return text


def get_lr(optimizer):
    for param_group in optimizer.param_groups:
        return param_group["lr"]


class ImageEncoder(nn.Module):
    """Stand-in for the timm ResNet50 (num_classes=0, global_pool='avg')."""

    def __init__(self, trainable=True):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
            nn.Conv2d(32, CFG.image_embedding, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        for p in self.model.parameters():
            p.requires_grad = trainable

    def forward(self, x):
        return self.model(x)


class TextEncoder(nn.Module):
    """Stand-in for DistilBERT: we take the hidden state of the CLS token."""

    def __init__(self, trainable=True):
        super().__init__()
        self.embed = nn.Embedding(CFG.vocab_size, CFG.text_embedding)
        layer = nn.TransformerEncoderLayer(CFG.text_embedding, nhead=4, dim_feedforward=64,
                                           dropout=0.0, batch_first=True)
        self.model = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        for p in self.parameters():
            p.requires_grad = trainable
        self.target_token_idx = 0

    def forward(self, input_ids, attention_mask):
        last_hidden_state = self.model(self.embed(input_ids), src_key_padding_mask=attention_mask == 0)
        return last_hidden_state[:, self.target_token_idx, :]


class ProjectionHead(nn.Module):
    def __init__(self, embedding_dim, projection_dim=CFG.projection_dim, dropout=CFG.dropout):
        super().__init__()
        self.projection = nn.Linear(embedding_dim, projection_dim)
        self.gelu = nn.GELU()
        self.fc = nn.Linear(projection_dim, projection_dim)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(projection_dim)

    def forward(self, x):
        projected = self.projection(x)
        x = self.gelu(projected)
        x = self.fc(x)
        x = self.dropout(x)
        x = x + projected
        x = self.layer_norm(x)
        return x


class CLIPModel(nn.Module):
    def __init__(self, temperature=CFG.temperature, image_embedding=CFG.image_embedding,
                 text_embedding=CFG.text_embedding):
        super().__init__()
        self.image_encoder = ImageEncoder()
        self.text_encoder = TextEncoder()
        self.image_projection = ProjectionHead(embedding_dim=image_embedding)
        self.text_projection = ProjectionHead(embedding_dim=text_embedding)
        self.temperature = temperature

    def forward(self, batch):
        image_features = self.image_encoder(batch["image"])
        text_features = self.text_encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        image_embeddings = self.image_projection(image_features)
        text_embeddings = self.text_projection(text_features)

        logits = (text_embeddings @ image_embeddings.T) / self.temperature
        images_similarity = image_embeddings @ image_embeddings.T
        texts_similarity = text_embeddings @ text_embeddings.T
        targets = F.softmax((images_similarity + texts_similarity) / 2 * self.temperature, dim=-1)
        texts_loss = cross_entropy(logits, targets, reduction='none')
        images_loss = cross_entropy(logits.T, targets.T, reduction='none')
        loss = (images_loss + texts_loss) / 2.0  # shape: (batch_size)
        return loss.mean()


def cross_entropy(preds, targets, reduction='none'):
    log_softmax = nn.LogSoftmax(dim=-1)
    loss = (-targets * log_softmax(preds)).sum(1)
    if reduction == "none":
        return loss
    elif reduction == "mean":
        return loss.mean()


def build_batch(seed):
    g = torch.Generator().manual_seed(seed)
    image = torch.rand(CFG.batch_size, 3, CFG.size, CFG.size, generator=g)
    input_ids = torch.randint(1, CFG.vocab_size, (CFG.batch_size, CFG.max_length), generator=g)
    lengths = torch.randint(4, CFG.max_length + 1, (CFG.batch_size,), generator=g)
    attention_mask = (torch.arange(CFG.max_length)[None, :] < lengths[:, None]).long()
    return {"image": image, "input_ids": input_ids, "attention_mask": attention_mask,
            "caption": ["a photo"] * CFG.batch_size}


def train_epoch(model, train_loader, optimizer, lr_scheduler, step):
    loss_meter = AvgMeter()
    for seed in train_loader:
        batch = build_batch(seed)
        batch = {k: v.to(CFG.device) for k, v in batch.items() if k != "caption"}
        loss = model(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step == "batch":
            lr_scheduler.step()

        count = batch["image"].size(0)
        loss_meter.update(loss, count)  # TLK101

        postfix = dict(train_loss=loss_meter.avg, lr=get_lr(optimizer))
    return loss_meter


def make_batches(n):
    # one caption/image seed per batch; the tensors are built inside the loop
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    model = CLIPModel().to(CFG.device)
    params = [
        {"params": model.image_encoder.parameters(), "lr": CFG.image_encoder_lr},
        {"params": model.text_encoder.parameters(), "lr": CFG.text_encoder_lr},
        {"params": list(model.image_projection.parameters()) + list(model.text_projection.parameters()),
         "lr": CFG.head_lr, "weight_decay": CFG.weight_decay},
    ]
    optimizer = torch.optim.AdamW(params, weight_decay=0.)
    lr_scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="min", patience=CFG.patience, factor=CFG.factor
    )
    step = "epoch"
    model.train()
    train_loss = train_epoch(model, batches, optimizer, lr_scheduler, step)
    return train_loss
