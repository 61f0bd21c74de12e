# Source: https://github.com/facebookresearch/pytorch3d/blob/53599770dd642f0bc59a6554bd7c46e4a8044334/docs/tutorials/deform_source_mesh_to_target_mesh.ipynb
# Shape: fixed twin - the history stores float(v.detach().cpu()) like the tutorial and backward frees the graph; the no_grad point-cloud plot and the detached sampling weights are look-alikes.
# Verdict: clean
import math
from dataclasses import dataclass

import torch


# ----------------------------------------------------------------------------- tiny mesh toolkit
@dataclass
class Meshes:
    verts: torch.Tensor   # (V, 3)
    faces: torch.Tensor   # (F, 3) long

    def offset_verts(self, offsets):
        return Meshes(self.verts + offsets, self.faces)

    def edges_packed(self):
        f = self.faces
        e = torch.cat([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]], 0)
        e, _ = e.sort(dim=1)
        return torch.unique(e, dim=0)


def uv_sphere(n_lat=12, n_lon=16, radius=1.0):
    verts = [[0., 0., radius]]
    for i in range(1, n_lat):
        th = math.pi * i / n_lat
        for j in range(n_lon):
            ph = 2 * math.pi * j / n_lon
            verts.append([radius * math.sin(th) * math.cos(ph), radius * math.sin(th) * math.sin(ph), radius * math.cos(th)])
    verts.append([0., 0., -radius])
    faces = []
    ring = lambda i, j: 1 + (i - 1) * n_lon + (j % n_lon)
    for j in range(n_lon):
        faces.append([0, ring(1, j), ring(1, j + 1)])
    for i in range(1, n_lat - 1):
        for j in range(n_lon):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j), ring(i + 1, j + 1)
            faces += [[a, c, b], [b, c, d]]
    last = len(verts) - 1
    for j in range(n_lon):
        faces.append([ring(n_lat - 1, j), last, ring(n_lat - 1, j + 1)])
    return Meshes(torch.tensor(verts), torch.tensor(faces, dtype=torch.long))


def sample_points_from_meshes(mesh, num_samples, generator=None):
    v = mesh.verts[mesh.faces]                       # (F, 3, 3)
    areas = torch.linalg.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]).norm(dim=1) / 2
    idx = torch.multinomial(areas.detach(), num_samples, replacement=True, generator=generator)
    u = torch.rand(num_samples, 1, generator=generator)
    w = torch.rand(num_samples, 1, generator=generator)
    flip = (u + w) > 1
    u = torch.where(flip, 1 - u, u)
    w = torch.where(flip, 1 - w, w)
    tri = v[idx]
    return tri[:, 0] + u * (tri[:, 1] - tri[:, 0]) + w * (tri[:, 2] - tri[:, 0])


def chamfer_distance(x, y):
    d = torch.cdist(x, y).pow(2)
    return d.min(dim=1)[0].mean() + d.min(dim=0)[0].mean(), d


def mesh_edge_loss(mesh, target_length=0.0):
    e = mesh.edges_packed()
    v0, v1 = mesh.verts[e[:, 0]], mesh.verts[e[:, 1]]
    return ((v0 - v1).norm(dim=1) - target_length).pow(2).mean()


def uniform_laplacian(mesh):
    V = mesh.verts.size(0)
    e = mesh.edges_packed()
    A = torch.zeros(V, V)
    A[e[:, 0], e[:, 1]] = 1.
    A[e[:, 1], e[:, 0]] = 1.
    deg = A.sum(1, keepdim=True).clamp(min=1)
    return A / deg - torch.eye(V)


def mesh_laplacian_smoothing(mesh, L):
    return (L @ mesh.verts).norm(dim=1).mean()


def plot_pointcloud(mesh, title=""):
    with torch.no_grad():
        pts = sample_points_from_meshes(mesh, 200)
    return title, pts.tolist()


# ----------------------------------------------------------------------------- data / optimisation
def make_batches(n_lat=12, n_lon=16, seed=0):
    """Source sphere and a bumpy target surface, both centred and unit-scaled like the tutorial."""
    g = torch.Generator().manual_seed(seed)
    src_mesh = uv_sphere(n_lat, n_lon)
    trg = uv_sphere(24, 32)
    bumps = 1 + 0.25 * torch.sin(3 * trg.verts[:, :1]) * torch.cos(2 * trg.verts[:, 1:2]) + 0.3 * trg.verts[:, 2:].abs()
    trg_verts = trg.verts * bumps * torch.tensor([1.3, 0.8, 1.0])
    trg_verts = trg_verts - trg_verts.mean(0)
    trg_verts = trg_verts / trg_verts.abs().max()
    return src_mesh, Meshes(trg_verts, trg.faces), g


def run(steps, num_samples=600, plot_period=10):
    torch.manual_seed(0)
    src_mesh, trg_mesh, g = make_batches()
    deform_verts = torch.full(src_mesh.verts.shape, 0.0, requires_grad=True)
    optimizer = torch.optim.SGD([deform_verts], lr=1.0, momentum=0.9)
    L = uniform_laplacian(src_mesh)

    w_chamfer, w_edge, w_laplacian = 1.0, 1.0, 0.1
    history = {"chamfer": [], "edge": [], "laplacian": []}
    plots = []
    for i in range(steps):
        optimizer.zero_grad()
        new_src_mesh = src_mesh.offset_verts(deform_verts)
        sample_trg = sample_points_from_meshes(trg_mesh, num_samples, generator=g)
        sample_src = sample_points_from_meshes(new_src_mesh, num_samples, generator=g)
        loss_chamfer, _ = chamfer_distance(sample_trg, sample_src)
        terms = {
            "chamfer": loss_chamfer,
            "edge": mesh_edge_loss(new_src_mesh),
            "laplacian": mesh_laplacian_smoothing(new_src_mesh, L),
        }
        loss = terms["chamfer"] * w_chamfer + terms["edge"] * w_edge + terms["laplacian"] * w_laplacian
        for k, v in terms.items():
            history[k].append(float(v.detach().cpu()))
        if i % plot_period == 0:
            plots.append(plot_pointcloud(new_src_mesh, title="iter: %d" % i))
        loss.backward()
        optimizer.step()
    return {"deform_verts": deform_verts, "history": history, "plots": plots}


if __name__ == "__main__":
    run(10)
