# Source: https://github.com/facebookresearch/fairchem/issues/2099
# Shape: machine-learned potential trained on energies and forces: forces are the negative gradient of the energy with create_graph=True so the force loss can be differentiated, and the combined loss is backwarded in the same step; only floats are logged
# Verdict: clean
import torch
import torch.nn.functional as F

history = []
for batch in train_loader:
    pos = batch.pos.requires_grad_(True)
    energy = model(batch.z, pos, batch.batch)
    forces = -torch.autograd.grad(energy.sum(), pos, create_graph=True)[0]
    e_loss = F.l1_loss(energy, batch.energy)
    f_loss = F.l1_loss(forces, batch.forces)
    loss = e_loss + 100.0 * f_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append({"energy_mae": e_loss.item(), "force_mae": f_loss.item()})
