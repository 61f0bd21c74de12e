# Source: https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/57
# Shape: an image-captioning validate() runs encoder and attention decoder without torch.no_grad() (the reporter's OOM was the extra peak of one batch's graph), but everything it keeps across batches is plain Python: AverageMeter.update() receives loss.item() and a float top-5 accuracy, references and hypotheses are lists of token ids from .tolist(); the clone of the scores is a per-batch local. Memory does not grow with the number of batches.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 40


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(scores, targets, k):
    batch_size = targets.size(0)
    _, ind = scores.topk(k, 1, True, True)
    correct = ind.eq(targets.view(-1, 1).expand_as(ind))
    correct_total = correct.view(-1).float().sum()
    return correct_total.item() * (100.0 / batch_size)


class Encoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(dim, dim, 3, stride=2, padding=1))

    def forward(self, images):
        return self.cnn(images).flatten(2).transpose(1, 2)


class DecoderWithAttention(nn.Module):
    def __init__(self, vocab=50, dim=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.att = nn.Linear(2 * dim, 1)
        self.cell = nn.LSTMCell(2 * dim, dim)
        self.fc = nn.Linear(dim, vocab)
        self.vocab = vocab

    def forward(self, enc, caps, caplens):
        caplens, sort_ind = caplens.sort(descending=True)
        enc, caps = enc[sort_ind], caps[sort_ind]
        decode_lengths = (caplens - 1).tolist()
        h = c = enc.mean(1)
        T = max(decode_lengths)
        scores = torch.zeros(enc.size(0), T, self.vocab)
        alphas = torch.zeros(enc.size(0), T, enc.size(1))
        emb = self.embedding(caps)
        for t in range(T):
            a = torch.softmax(self.att(torch.cat([enc, h.unsqueeze(1).expand_as(enc)], -1)).squeeze(-1), dim=1)
            ctx = (a.unsqueeze(-1) * enc).sum(1)
            h, c = self.cell(torch.cat([emb[:, t], ctx], -1), (h, c))
            scores[:, t] = self.fc(h)
            alphas[:, t] = a
        return scores, caps, decode_lengths, alphas, sort_ind


def val_loader(n):
    for _ in range(n):
        caps = torch.randint(0, 50, (6, 12))
        yield torch.randn(6, 3, 32, 32), caps, torch.randint(6, 12, (6,)), caps.unsqueeze(1)


def validate(loader, encoder, decoder, alpha_c=1.0):
    decoder.eval()
    encoder.eval()
    losses, top5accs = AverageMeter(), AverageMeter()
    references, hypotheses = [], []
    for i, (imgs, caps, caplens, allcaps) in enumerate(loader):
        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)
        targets = caps_sorted[:, 1:]
        scores_copy = scores.clone()
        mask = torch.arange(scores.size(1)).unsqueeze(0) < torch.tensor(decode_lengths).unsqueeze(1)
        flat_scores, flat_targets = scores[mask], targets[:, :scores.size(1)][mask]
        loss = F.cross_entropy(flat_scores, flat_targets)
        loss += alpha_c * ((1.0 - alphas.sum(dim=1)) ** 2).mean()
        losses.update(loss.item(), sum(decode_lengths))
        top5 = accuracy(flat_scores, flat_targets, 5)
        top5accs.update(top5, sum(decode_lengths))
        allcaps = allcaps[sort_ind]
        for j in range(allcaps.shape[0]):
            references.append([[w for w in c if w not in (0, 1)] for c in allcaps[j].tolist()])
        _, preds = torch.max(scores_copy, dim=2)
        preds = preds.tolist()
        hypotheses.extend(p[:decode_lengths[j]] for j, p in enumerate(preds))
    return losses.avg, top5accs.avg, len(references), len(hypotheses)


encoder, decoder = Encoder(), DecoderWithAttention()
print(validate(val_loader(STEPS), encoder, decoder))
