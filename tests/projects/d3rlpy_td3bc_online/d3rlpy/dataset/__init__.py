from .buffers import (  # noqa: F401
    Episode,
    FIFOBuffer,
    ReplayBuffer,
    TransitionMiniBatch,
    create_fifo_replay_buffer,
)
