# Source: https://github.com/microsoft/Biodiversity/pull/662
# Shape: batch_image_classification() runs the classifier without torch.no_grad() and appends each batch's logits to total_logits, so the forward graph of every inference batch (with all saved activations) is kept until the whole dataset has been classified and is returned with the results.
# Verdict: leak
"""PytorchWildlife-style species classifier: a base classifier class with
single/batch classification helpers, fine-tuned briefly on camera-trap crops
and then run over a folder of crops in batches."""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS_NAMES = {0: "badger", 1: "deer", 2: "fox", 3: "hare", 4: "empty"}


class TinyBackbone(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


class BaseClassifierInference(nn.Module):
    def __init__(self, class_names=CLASS_NAMES, device="cpu"):
        super().__init__()
        self.class_names = class_names
        self.device = device
        self.model = TinyBackbone(len(class_names)).to(device)

    def results_generation(self, logits, img_ids, id_strip=None):
        probs = F.softmax(logits, dim=1)
        conf, pred = probs.max(dim=1)
        return [{"img_id": i, "prediction": self.class_names[int(p)], "class_id": int(p),
                 "confidence": float(c)} for i, p, c in zip(img_ids, pred, conf)]

    def single_image_classification(self, img, img_id=None):
        self.model.eval()
        with torch.no_grad():
            logits = self.model(img.unsqueeze(0).to(self.device))
        return self.results_generation(logits.cpu(), [img_id])[0]

    def batch_image_classification(self, dataloader, id_strip=None):
        self.model.eval()
        total_logits, total_paths = [], []
        for imgs, paths in dataloader:
            logits = self.model(imgs.to(self.device))
            total_logits.append(logits)  # TLK102
            total_paths.extend(paths)
        total_logits = torch.cat(total_logits, dim=0)
        return self.results_generation(total_logits, total_paths, id_strip), total_logits


def make_batches(n, batch_size=8, seed=0, labelled=True):
    g = torch.Generator().manual_seed(seed)
    out = []
    for b in range(n):
        imgs = torch.randn(batch_size, 3, 16, 16, generator=g)
        if labelled:
            out.append((imgs, torch.randint(0, len(CLASS_NAMES), (batch_size,), generator=g)))
        else:
            out.append((imgs, [f"crop_{b}_{i}.jpg" for i in range(batch_size)]))
    return out


def finetune(classifier, loader, epochs=1, lr=1e-3):
    optimizer = torch.optim.AdamW(classifier.model.parameters(), lr=lr)
    for _ in range(epochs):
        classifier.model.train()
        for imgs, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(classifier.model(imgs), labels)
            loss.backward()
            optimizer.step()
    return loss.item()


def run(steps):
    torch.manual_seed(0)
    clf = BaseClassifierInference()
    last_loss = finetune(clf, make_batches(steps, seed=1))
    results, logits = clf.batch_image_classification(make_batches(steps, seed=2, labelled=False))
    print(f"finetune loss {last_loss:.3f}; classified {len(results)} crops; "
          f"first: {results[0]['prediction']} ({results[0]['confidence']:.2f})")
    return {"results": results, "logits": logits, "classifier": clf}


if __name__ == "__main__":
    run(10)
