# Source: https://github.com/rballester/tntorch/pull/19
# Shape: A CP tensor-decomposition fitter with gradient accumulation and early stopping appends every step's loss tensor to loss_history and compares entries for the stopping rule.
# Verdict: clean
import torch


class CPModel(torch.nn.Module):
    def __init__(self, shape, rank=4, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.factors = torch.nn.ParameterList(
            [torch.nn.Parameter(0.5 * torch.randn(s, rank, generator=g)) for s in shape]
        )

    def entries(self, idx):
        prod = self.factors[0][idx[:, 0]]
        for mode in range(1, len(self.factors)):
            prod = prod * self.factors[mode][idx[:, mode]]
        return prod.sum(dim=1)


class EarlyStopping:
    def __init__(self, patience=50, tol=1e-6):
        self.patience = patience
        self.tol = tol

    def should_stop(self, history):
        if len(history) <= self.patience:
            return False
        best_before = min(history[:-self.patience])
        best_recent = min(history[-self.patience:])
        return best_before - best_recent < self.tol


class CPFitter:
    def __init__(self, shape, rank=4, lr=0.05, accum_steps=2):
        self.model = CPModel(shape, rank)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.accum_steps = accum_steps
        self.loss_history = []
        self.stopper = EarlyStopping()

    def relative_error(self, idx, values):
        approx = self.model.entries(idx)
        return torch.linalg.norm(approx - values) / torch.linalg.norm(values)

    def fit(self, sample_stream):
        self.optimizer.zero_grad()
        for it, (idx, values) in enumerate(sample_stream):
            loss = self.relative_error(idx, values)
            (loss / self.accum_steps).backward()
            if (it + 1) % self.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.loss_history.append(loss.item())
            if self.stopper.should_stop(self.loss_history):
                print(f"converged at iteration {it}")
                break
        return self.loss_history


def make_batches(n=24, seed=0, shape=(12, 10, 8), n_samples=64):
    g = torch.Generator().manual_seed(seed)
    a, b, c = (torch.randn(s, 3, generator=g) for s in shape)
    full = torch.einsum("ir,jr,kr->ijk", a, b, c)
    out = []
    for _ in range(n):
        idx = torch.stack([torch.randint(0, s, (n_samples,), generator=g) for s in shape], dim=1)
        out.append((idx, full[idx[:, 0], idx[:, 1], idx[:, 2]]))
    return out


def run(batches):
    fitter = CPFitter(shape=(12, 10, 8))
    history = fitter.fit(batches)
    print(f"{len(history)} steps, last rel. error {float(history[-1]):.4f}")
    return history


if __name__ == "__main__":
    run(make_batches())
