# Source: https://github.com/Project-MONAI/MONAILabel/issues/1606
# Shape: epistemic scoring keeps dropout active (model.train()) but runs the MC passes inside torch.no_grad(), so the per-image entropy scores stored in self.scores carry no graph; only the labelled-batch loss is backwarded.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class DropoutUNetLite(nn.Module):
    def __init__(self, in_ch=1, out_ch=2, ch=16, dropout=0.2):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, ch, 3, padding=1), nn.ReLU(), nn.Dropout2d(dropout))
        self.down = nn.Sequential(nn.Conv2d(ch, 2 * ch, 3, stride=2, padding=1), nn.ReLU(), nn.Dropout2d(dropout))
        self.up = nn.ConvTranspose2d(2 * ch, ch, 2, stride=2)
        self.head = nn.Conv2d(2 * ch, out_ch, 1)

    def forward(self, x):
        e = self.enc(x)
        d = self.up(self.down(e))
        return self.head(torch.cat([e, d], dim=1))


class EpistemicScoring:
    """Entropy of the mean softmax over several dropout-perturbed passes (MONAI Label style)."""

    def __init__(self, model, simulation_size=5):
        self.model = model
        self.simulation_size = simulation_size
        self.scores = {}

    @staticmethod
    def entropy_3d_volume(vol_input):
        vol_input = vol_input.clamp(min=1e-6)
        return -(vol_input * torch.log(vol_input)).sum(dim=1).mean()

    def __call__(self, image_id, image):
        self.model.train()  # keep dropout on
        with torch.no_grad():
            accum = [F.softmax(self.model(image), dim=1) for _ in range(self.simulation_size)]
        mean_prob = torch.stack(accum).mean(0)
        score = self.entropy_3d_volume(mean_prob)
        self.scores[image_id] = score
        return score


def make_image(seed, size=32):
    g = torch.Generator().manual_seed(seed)
    img = torch.randn(1, 1, size, size, generator=g)
    lbl = (img[:, 0] > 0.5).long()
    return img, lbl


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 1000, (n,))]


def run(batches):
    torch.manual_seed(1)
    model = DropoutUNetLite()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scorer = EpistemicScoring(model, simulation_size=5)
    unlabeled_pool = [make_image(50_000 + i)[0] for i in range(4)]
    losses = []
    for step, seed in enumerate(batches):
        img, lbl = make_image(seed)
        model.train()
        loss = F.cross_entropy(model(img), lbl)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        image_id = step % len(unlabeled_pool)
        scorer(image_id, unlabeled_pool[image_id])
    ranked = sorted(scorer.scores.items(), key=lambda kv: float(kv[1]), reverse=True)
    return ranked, losses
