"""Modelled on nerfstudio-project/nerfacc (MIT):

examples/train_mlp_nerf.py (occupancy-grid NeRF) as main(steps), scaled down for CPU.
"""
import math
import time

import torch
import torch.nn.functional as F

from examples.datasets.nerf_synthetic import SubjectLoader
from examples.radiance_fields.mlp import VanillaNeRFRadianceField
from examples.utils import AverageMeter, render_image_with_occgrid, set_random_seed
from nerfacc.estimators.occ_grid import OccGridEstimator


def main(steps: int) -> dict:
    device = "cpu"
    torch.set_num_threads(1)  # tiny CPU run
    set_random_seed(42)

    # training parameters
    max_steps = steps
    init_batch_size = 128
    target_sample_batch_size = 1 << 12
    # scene parameters
    aabb = torch.tensor([-1.5, -1.5, -1.5, 1.5, 1.5, 1.5], device=device)
    near_plane = 0.0
    far_plane = 1.0e10
    # model parameters
    grid_resolution = 16
    grid_nlvl = 1
    # render parameters
    render_step_size = 0.1

    train_dataset = SubjectLoader(subject_id="lego", root_fp="data/nerf_synthetic", split="train",
                                  num_rays=init_batch_size, device=device)
    test_dataset = SubjectLoader(subject_id="lego", root_fp="data/nerf_synthetic", split="test",
                                 num_rays=None, device=device, n_views=2)

    estimator = OccGridEstimator(roi_aabb=aabb, resolution=grid_resolution, levels=grid_nlvl).to(device)

    # setup the radiance field we want to train.
    radiance_field = VanillaNeRFRadianceField(net_depth=4, net_width=32, skip_layer=2, net_depth_condition=1,
                                              net_width_condition=16).to(device)
    optimizer = torch.optim.Adam(radiance_field.parameters(), lr=5e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(
        optimizer,
        milestones=[max_steps // 2, max_steps * 3 // 4, max_steps * 5 // 6, max_steps * 9 // 10],
        gamma=0.33,
    )
    train_psnr = AverageMeter("train/psnr")
    test_psnr = AverageMeter("test/psnr")

    # training
    tic = time.time()
    for step in range(max_steps):
        radiance_field.train()
        estimator.train()

        i = torch.randint(0, len(train_dataset), (1,)).item()
        data = train_dataset[i]

        render_bkgd = data["color_bkgd"]
        rays = data["rays"]
        pixels = data["pixels"]

        def occ_eval_fn(x):
            density = radiance_field.query_density(x)
            return density * render_step_size

        # update occupancy grid
        estimator.update_every_n_steps(step=step, occ_eval_fn=occ_eval_fn, occ_thre=1e-2, n=4)

        # render
        rgb, acc, depth, n_rendering_samples = render_image_with_occgrid(
            radiance_field,
            estimator,
            rays,
            # rendering options
            near_plane=near_plane,
            render_step_size=render_step_size,
            render_bkgd=render_bkgd,
        )
        if n_rendering_samples == 0:
            continue

        if target_sample_batch_size > 0:
            # dynamic batch size for rays to keep sample batch size constant.
            num_rays = len(pixels)
            num_rays = int(num_rays * (target_sample_batch_size / float(n_rendering_samples)))
            train_dataset.update_num_rays(min(max(num_rays, 64), 256))

        # compute loss
        loss = F.smooth_l1_loss(rgb, pixels)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        mse = F.mse_loss(rgb, pixels)
        psnr = -10.0 * torch.log(mse) / math.log(10.0)
        train_psnr.update(psnr, n=len(pixels))  # expect: TLK101

        if step % 5000 == 0:
            elapsed_time = time.time() - tic
            print(
                f"elapsed_time={elapsed_time:.2f}s | step={step} | "
                f"loss={mse:.5f} | psnr={psnr:.2f} | "
                f"n_rendering_samples={n_rendering_samples:d} | num_rays={len(pixels):d} | "
                f"max_depth={depth.max():.3f} | "
            )

    # evaluation
    radiance_field.eval()
    estimator.eval()

    psnrs = []
    with torch.no_grad():
        for i in range(len(test_dataset)):
            data = test_dataset[i]
            render_bkgd = data["color_bkgd"]
            rays = data["rays"]
            pixels = data["pixels"]

            # rendering
            rgb, acc, depth, _ = render_image_with_occgrid(
                radiance_field,
                estimator,
                rays,
                # rendering options
                near_plane=near_plane,
                render_step_size=render_step_size,
                render_bkgd=render_bkgd,
                # test options
                test_chunk_size=4096,
            )
            mse = F.mse_loss(rgb, pixels)
            psnr = -10.0 * torch.log(mse) / math.log(10.0)
            psnrs.append(psnr.item())
            test_psnr.update(psnr.item())
    psnr_avg = sum(psnrs) / len(psnrs)

    return {
        "train_psnr": float(train_psnr.avg),
        "test_psnr": psnr_avg,
        "occupied_fraction": estimator.binaries.float().mean().item(),
    }


if __name__ == "__main__":
    t = time.time()
    print(main(30), f"{time.time() - t:.2f}s")
