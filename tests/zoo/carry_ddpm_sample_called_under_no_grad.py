# Source: https://github.com/willisma/SiT/pull/43
# Shape: the same DDPM sampler, undecorated, but the training script draws its per-epoch samples inside a with torch.no_grad() block around the call, so the reverse-diffusion loop records no graph and x_i carries none from step to step.
# Verdict: clean
import torch
import torch.nn as nn


class DDPM(nn.Module):
    def __init__(self, nn_model: nn.Module, schedules: dict, n_T=400, drop_prob=0.1):
        super().__init__()
        self.nn_model = nn_model
        for name, value in schedules.items():
            self.register_buffer(name, value)
        self.n_T = n_T
        self.drop_prob = drop_prob
        self.loss_mse = nn.MSELoss()

    def forward(self, x, c):
        ts = torch.randint(1, self.n_T + 1, (x.shape[0],), device=x.device)
        noise = torch.randn_like(x)
        x_t = self.sqrtab[ts, None, None, None] * x + self.sqrtmab[ts, None, None, None] * noise
        context_mask = torch.bernoulli(torch.full_like(c, self.drop_prob, dtype=torch.float32))
        return self.loss_mse(noise, self.nn_model(x_t, c, ts / self.n_T, context_mask))

    def sample(self, n_sample, size, device, guide_w=0.0):
        x_i = torch.randn(n_sample, *size, device=device)
        c_i = torch.arange(0, 10, device=device).repeat(n_sample // 10 + 1)[:n_sample]
        context_mask = torch.zeros_like(c_i, dtype=torch.float32)
        c_i, context_mask = c_i.repeat(2), torch.cat([context_mask, torch.ones_like(context_mask)])
        x_i_store = []
        for i in range(self.n_T, 0, -1):
            t_is = torch.full((n_sample * 2,), i / self.n_T, device=device)
            z = torch.randn(n_sample, *size, device=device) if i > 1 else 0
            eps = self.nn_model(x_i.repeat(2, 1, 1, 1), c_i, t_is, context_mask)
            eps = (1 + guide_w) * eps[:n_sample] - guide_w * eps[n_sample:]
            x_i = self.oneover_sqrta[i] * (x_i - eps * self.mab_over_sqrtmab[i]) + self.sqrt_beta_t[i] * z
            if i % 20 == 0 or i < 8:
                x_i_store.append(x_i.cpu())
        return x_i, torch.stack(x_i_store)


def train_mnist(ddpm: DDPM, loader, device, n_epoch=20, lrate=1e-4):
    optim = torch.optim.Adam(ddpm.parameters(), lr=lrate)
    for ep in range(n_epoch):
        ddpm.train()
        optim.param_groups[0]["lr"] = lrate * (1 - ep / n_epoch)
        loss_ema = None
        for x, c in loader:
            optim.zero_grad()
            loss = ddpm(x.to(device), c.to(device))
            loss.backward()
            loss_ema = loss.item() if loss_ema is None else 0.95 * loss_ema + 0.05 * loss.item()
            optim.step()
        ddpm.eval()
        with torch.no_grad():
            for w in (0.0, 0.5, 2.0):
                x_gen, x_gen_store = ddpm.sample(40, (1, 28, 28), device, guide_w=w)
                torch.save(x_gen_store, f"samples_ep{ep}_w{w}.pt")
        print(f"epoch {ep} loss {loss_ema:.4f}")
