# Layout modelled on yenchenlin/nerf-pytorch (run_nerf.py): train() samples a random batch of
# rays per iteration, renders them, optimises img2mse (from run_nerf_helpers.py) with Adam and an
# exponential learning-rate decay, logs the PSNR every i_print iterations and renders the test
# poses under torch.no_grad() every i_testset iterations. Reduced: the rays and the target colours
# are passed in as tensors, one network; added: the occupancy grid of occupancy.py, a smoothed
# PSNR for the progress line, and a preview of the camera path every i_video iterations.
import torch

from occupancy import OccupancyGrid
from render import render_path, render_rays
from run_nerf_helpers import NeRF, img2mse, mse2psnr, psnr_value


def train(rays_o, rays_d, target, test_rays, N_iters=10, N_rand=16, lrate=5e-3, lrate_decay=250, i_print=5, i_testset=5, i_video=5):
    network_fn = NeRF()
    optimizer = torch.optim.Adam(network_fn.parameters(), lr=lrate, betas=(0.9, 0.999))
    grid = OccupancyGrid()
    smoothed_psnr = None
    test_psnrs = []
    previews = []
    history = []
    for i in range(N_iters):
        select = torch.randint(0, rays_o.shape[0], (N_rand,))
        rgb, disp, extras = render_rays(network_fn, rays_o[select], rays_d[select])

        optimizer.zero_grad()
        img_loss = img2mse(rgb, target[select])
        loss = img_loss
        psnr = mse2psnr(img_loss)
        loss.backward()  # clean: img2mse's loss, backwarded here
        optimizer.step()

        decay_rate = 0.1
        new_lrate = lrate * (decay_rate ** (i / (lrate_decay * 1000)))
        for param_group in optimizer.param_groups:
            param_group["lr"] = new_lrate

        # Measured under torch 2.13 CPU (16 rays of 8 samples, 1, 6, 11 iterations): the grid keeps
        # 44 -> 209 -> 374 autograd nodes and 5,632 -> 33,832 -> 62,032 B of saved tensors (+33 nodes,
        # +5,640 B per iteration), each new grid computed from the last; 0 with sigma.detach().
        grid.update(extras["pts"], extras["sigma"])  # known-miss: TLK103 (OccupancyGrid.update in occupancy.py rebinds self.density_grid from its own decayed copy through Tensor.index_reduce, which is not counted as keeping the graph of sigma; with decayed + sigma.mean() it is reported here)
        # Measured (1, 6, 11 iterations): 63 -> 333 -> 603 autograd nodes (+54 per iteration); 0 with
        # psnr.item().
        smoothed_psnr = psnr if smoothed_psnr is None else 0.9 * smoothed_psnr + 0.1 * psnr  # known-miss: TLK101 (psnr = mse2psnr(img_loss), and mse2psnr and img2mse are module-level lambdas of run_nerf_helpers.py whose results are unknown; with def functions the line is reported, as TLK103)
        # Added after the first score (the other three leaks were scored before any change).
        # Measured (1, 6, 11 iterations): 61 -> 306 -> 551 autograd nodes, 360 -> 2,160 -> 3,960 B of
        # saved tensors (+49 nodes, +360 B per iteration: the disparity branch is not backwarded, so
        # its saved tensors stay); 0 with disp.mean().item().
        history.append({"iter": i, "loss": loss.item(), "mean_disp": disp.mean()})  # expect: TLK102
        if i % i_print == 0:
            print(f"[TRAIN] Iter: {i} Loss: {loss.item()}  PSNR: {psnr.item()} smoothed: {float(smoothed_psnr):.2f}")
        if i % i_testset == 0:
            with torch.no_grad():
                test_rgbs, _ = render_path(network_fn, test_rays)
            test_psnrs.append(psnr_value(test_rgbs[0], target[: test_rgbs.shape[1]]))  # clean: psnr_value returns .item()
        if i % i_video == 0:
            preview_rgbs, preview_disps = render_path(network_fn, test_rays)
            previews.append(preview_disps.mean().item())  # clean: a number
    return network_fn, grid, smoothed_psnr, test_psnrs, previews, history
