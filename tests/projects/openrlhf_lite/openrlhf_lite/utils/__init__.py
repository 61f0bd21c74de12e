from .strategy import NaiveStrategy, get_strategy
from .tracker import LocalTracker
