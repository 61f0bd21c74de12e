from __future__ import annotations

from typing import Any

import torch

from skrl import config


class Model(torch.nn.Module):
    def __init__(self, *, observation_space=None, state_space=None, action_space=None, device=None) -> None:
        """Base class that represents a skrl model (policy/value function)."""
        super().__init__()
        self.device = config.torch.parse_device(device)
        self.observation_space = observation_space
        self.state_space = state_space
        self.action_space = action_space
        self.num_observations = observation_space
        self.num_actions = action_space

    def random_act(self, inputs: dict[str, Any], *, role: str = ""):
        actions = torch.rand((inputs["observations"].shape[0], self.num_actions), device=self.device) * 2 - 1
        return actions, {}

    def init_weights(self, method_name: str = "orthogonal_", *args, **kwargs) -> None:
        for module in self.modules():
            if isinstance(module, torch.nn.Linear):
                getattr(torch.nn.init, method_name)(module.weight, *args, **kwargs)

    def forward(self, inputs: dict[str, Any], *, role: str = ""):
        return self.act(inputs, role=role)

    def compute(self, inputs: dict[str, Any], *, role: str = ""):
        raise NotImplementedError("The model's .compute() method has not been implemented")

    def act(self, inputs: dict[str, Any], *, role: str = ""):
        raise NotImplementedError

    def enable_training_mode(self, enabled: bool = True) -> None:
        self.train(enabled)

    def update_parameters(self, model: torch.nn.Module, *, polyak: float = 1.0) -> None:
        with torch.no_grad():
            if polyak == 1:
                for parameters, model_parameters in zip(self.parameters(), model.parameters()):
                    parameters.data.copy_(model_parameters.data)
            else:
                for parameters, model_parameters in zip(self.parameters(), model.parameters()):
                    parameters.data.mul_(1 - polyak)
                    parameters.data.add_(polyak * model_parameters.data)
