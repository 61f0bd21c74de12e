# Source: https://github.com/amirgholami/adahessian/blob/5c176cdcbeacff1d9edfc77062d0bc7594f326a9/image_classification/main.py
# Shape: AdaHessian training loop: loss.backward(create_graph=True) so the optimizer can take Hutchinson Hessian-diagonal products from p.grad, then optimizer.zero_grad() (set_to_none) after the step breaks the parameter/.grad cycle every iteration (measured: 0 B/iter)
# Verdict: clean
import torch

for epoch in range(1, epochs + 1):
    model.train()
    train_loss, total = 0.0, 0
    for data, target in train_loader:
        output = model(data)
        loss = criterion(output, target)
        loss.backward(create_graph=True)
        train_loss += loss.item() * target.size(0)
        total += target.size(0)
        grads = [p.grad for p in model.parameters() if p.requires_grad]
        optimizer.step(grads)
        optimizer.zero_grad()
    scheduler.step()
