from typing import Any, Callable, List, Optional, Tuple

import torch


class DummyVectorEnv:
    """Run a list of environments sequentially in the current process.

    Each env follows the old gym API with tensors: ``reset() -> obs`` and
    ``step(act) -> (obs, rew, done, info)``.
    """

    def __init__(self, env_fns: List[Callable[[], Any]]) -> None:
        self.envs = [fn() for fn in env_fns]
        self.action_num = self.envs[0].action_num

    def __len__(self) -> int:
        return len(self.envs)

    def seed(self, seed: int) -> None:
        for i, env in enumerate(self.envs):
            env.seed(seed + i)

    def reset(self, id: Optional[torch.Tensor] = None) -> torch.Tensor:
        ids = range(len(self.envs)) if id is None else [int(i) for i in id]
        return torch.stack([self.envs[i].reset() for i in ids])

    def step(self, action: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, list]:
        results = [env.step(int(a)) for env, a in zip(self.envs, action)]
        obs, rew, done, info = zip(*results)
        return (
            torch.stack(obs),
            torch.tensor(rew, dtype=torch.float32),
            torch.tensor(done, dtype=torch.bool),
            list(info),
        )
