from .ema import ModelEMA, is_parallel
from .lr_scheduler import LRScheduler
from .metric import AverageMeter, MeterBuffer
from .logger import WandbLogger
from .boxes import bboxes_iou
from .model_utils import adjust_status
