from .actor import Actor, TinyCausalLM
from .loss import GPTLMLoss, PolicyLoss, ValueLoss
from .model import CriticModel, RewardModel, get_llm_for_sequence_regression
