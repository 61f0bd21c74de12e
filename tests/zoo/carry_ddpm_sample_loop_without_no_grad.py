# Source: https://github.com/TeaPearce/Conditional_Diffusion_MNIST/issues/12
# Shape: a DDPM module's sample method walks the reverse diffusion from noise, feeding x_i through the denoiser at every timestep with grad enabled; the script that draws samples from the trained model never turns grad off, so x_i chains all n_T denoiser graphs (saved activations included) until sampling ends, and the grids dict then keeps x_gen.cpu() (still attached) with that whole chain for every guidance weight.
# Verdict: leak
import torch
import torch.nn as nn


def ddpm_schedules(beta1, beta2, n_T):
    beta_t = (beta2 - beta1) * torch.arange(0, n_T + 1, dtype=torch.float32) / n_T + beta1
    alpha_t = 1 - beta_t
    alphabar_t = torch.cumsum(torch.log(alpha_t), dim=0).exp()
    return {
        "oneover_sqrta": 1 / torch.sqrt(alpha_t),
        "sqrt_beta_t": torch.sqrt(beta_t),
        "sqrtab": torch.sqrt(alphabar_t),
        "sqrtmab": torch.sqrt(1 - alphabar_t),
        "mab_over_sqrtmab": (1 - alpha_t) / torch.sqrt(1 - alphabar_t),
    }


class DDPM(nn.Module):
    def __init__(self, nn_model: nn.Module, betas=(1e-4, 0.02), n_T=400, drop_prob=0.1):
        super().__init__()
        self.nn_model = nn_model
        for name, value in ddpm_schedules(betas[0], betas[1], n_T).items():
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
            x_i = self.oneover_sqrta[i] * (x_i - eps * self.mab_over_sqrtmab[i]) + self.sqrt_beta_t[i] * z  # TLK103
            if i % 20 == 0 or i < 8:
                x_i_store.append(x_i.detach().cpu())
        return x_i, torch.stack(x_i_store)


def draw_samples(ddpm: DDPM, checkpoint_path, device, n_sample=40, guide_ws=(0.0, 0.5, 2.0)):
    ddpm.load_state_dict(torch.load(checkpoint_path, map_location=device))
    ddpm.eval()
    grids = {}
    for w in guide_ws:
        x_gen, x_gen_store = ddpm.sample(n_sample, (1, 28, 28), device, guide_w=w)
        grids[w] = (x_gen.cpu(), x_gen_store)  # TLK102
    return grids
