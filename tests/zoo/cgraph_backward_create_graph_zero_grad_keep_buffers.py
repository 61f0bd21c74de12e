# Source: https://github.com/pytorch/pytorch/issues/4661
# Shape: second-order optimizer loop that zeroes gradients with zero_grad(set_to_none=False) at the top of each step before loss.backward(create_graph=True); zeroing in place first detaches a .grad that has a grad_fn, which breaks the parameter/.grad cycle (measured: 0 B/iter, same as set_to_none=True)
# Verdict: clean
import torch

for epoch in range(num_epochs):
    for inputs, targets in loader:
        optimizer.zero_grad(set_to_none=False)
        loss = criterion(model(inputs), targets)
        loss.backward(create_graph=True)
        optimizer.step()
