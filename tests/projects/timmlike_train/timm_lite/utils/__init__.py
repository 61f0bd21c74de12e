from .clip_grad import dispatch_clip_grad
from .cuda import NativeScaler
from .feature_stats import FeatureStatsExtract
from .metrics import AverageMeter, accuracy
from .model_ema import ModelEmaV2
from .random import random_seed
from .summary import update_summary
