"""Pure-PyTorch subset of nerfacc (no CUDA extension): occupancy-grid estimator, packed volume rendering."""
from .estimators.occ_grid import OccGridEstimator
from .grid import ray_aabb_intersect
from .volrend import accumulate_along_rays, render_weight_from_density, rendering
