import torch
import torch.nn as nn
import torch.nn.functional as F

from models import MemoryBank, SafeMemoryBank

encoder = nn.Linear(32, 16)
bank = MemoryBank(1024, 16)
safe = SafeMemoryBank(1024, 16)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
for images, index in loader:
    feats = F.normalize(encoder(images), dim=1)
    scores = bank(feats, index)  # expect: TLK102 (models.py)
    safe_scores = safe(feats, index)
    loss = F.cross_entropy(scores, index) + F.cross_entropy(safe_scores, index)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
