# Mixed precision with GradScaler; the running loss forgets .item().
import torch

scaler = torch.cuda.amp.GradScaler()
running = 0.0
for images, targets in train_loader:
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        output = model(images)
        loss = loss_fn(output, targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    running += loss  # TLK101
