from .qlearning import *  # noqa: F401,F403
