from .losses import IOUloss
from .network_blocks import BaseConv
from .yolo_head import YOLOXHead
from .yolo_pafpn import YOLOPAFPN
from .yolox import YOLOX
