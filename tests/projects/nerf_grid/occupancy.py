# Modelled on the density grid that NeRF forks take from ashawkey/torch-ngp (update_extra_state):
# a coarse grid over the scene's bounding box keeps a decayed maximum of the densities seen in
# each cell, and samples in cells below a threshold are skipped. torch-ngp updates it under
# @torch.no_grad(); here update() is called with the densities of the training step.
import torch


class OccupancyGrid:
    def __init__(self, resolution=8, bound=1.0, decay=0.95, threshold=0.01):
        self.resolution = resolution
        self.bound = bound
        self.decay = decay
        self.threshold = threshold
        self.density_grid = torch.zeros(resolution ** 3)

    def cell_index(self, pts):
        cells = ((pts.reshape(-1, 3) + self.bound) / (2 * self.bound) * self.resolution).long()
        cells = cells.clamp(0, self.resolution - 1)
        return (cells[:, 0] * self.resolution + cells[:, 1]) * self.resolution + cells[:, 2]

    def update(self, pts, sigma):
        index = self.cell_index(pts)
        decayed = self.density_grid * self.decay
        self.density_grid = decayed.index_reduce(0, index, sigma.reshape(-1), "amax")

    def occupied(self, pts):
        return self.density_grid[self.cell_index(pts)] > self.threshold
