from typing import Any, Dict, Optional, Sequence, Tuple, Type, Union

import torch
from torch import nn

ModuleType = Type[nn.Module]


def miniblock(input_size: int, output_size: int = 0, activation: Optional[ModuleType] = None):
    """Construct a miniblock with given input/output-size and activation."""
    layers = [nn.Linear(input_size, output_size)]
    if activation is not None:
        layers += [activation()]
    return layers


class MLP(nn.Module):
    """Simple MLP backbone."""

    def __init__(
        self,
        input_dim: int,
        output_dim: int = 0,
        hidden_sizes: Sequence[int] = (),
        activation: Optional[ModuleType] = nn.ReLU,
    ) -> None:
        super().__init__()
        hidden_sizes = [input_dim] + list(hidden_sizes)
        model = []
        for in_dim, out_dim in zip(hidden_sizes[:-1], hidden_sizes[1:]):
            model += miniblock(in_dim, out_dim, activation)
        if output_dim > 0:
            model += [nn.Linear(hidden_sizes[-1], output_dim)]
        self.output_dim = output_dim or hidden_sizes[-1]
        self.model = nn.Sequential(*model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x.flatten(1).float())


class Net(nn.Module):
    """Wrapper of MLP to support more specific DRL usage.

    :param state_shape: int or a sequence of int of the shape of state.
    :param action_shape: int or a sequence of int of the shape of action.
    :param hidden_sizes: shape of MLP passed in as a list.
    """

    def __init__(
        self,
        state_shape: Union[int, Sequence[int]],
        action_shape: Union[int, Sequence[int]] = 0,
        hidden_sizes: Sequence[int] = (),
        activation: Optional[ModuleType] = nn.ReLU,
    ) -> None:
        super().__init__()
        input_dim = int(torch.tensor(state_shape).prod())
        action_dim = int(torch.tensor(action_shape).prod())
        self.model = MLP(input_dim, action_dim, hidden_sizes, activation)
        self.output_dim = self.model.output_dim

    def forward(
        self,
        obs: torch.Tensor,
        state: Any = None,
        info: Dict[str, Any] = {},
    ) -> Tuple[torch.Tensor, Any]:
        """Mapping: obs -> flatten (inside MLP)-> logits."""
        logits = self.model(obs)
        return logits, state
