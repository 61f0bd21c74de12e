"""Trimmed copy of the PFRL library layout (pfnet/pfrl): PPO + experiments + hooks."""
from pfrl import agent  # NOQA
from pfrl import agents  # NOQA
from pfrl import experiments  # NOQA
from pfrl import nn  # NOQA
from pfrl import policies  # NOQA
from pfrl import utils  # NOQA
