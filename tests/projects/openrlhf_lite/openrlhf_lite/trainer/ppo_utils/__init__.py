from .experience_maker import Experience, NaiveExperienceMaker
from .kl_controller import AdaptiveKLController, FixedKLController
from .replay_buffer import NaiveReplayBuffer
