from skrl.memories.torch.base import Memory
from skrl.memories.torch.random import RandomMemory
