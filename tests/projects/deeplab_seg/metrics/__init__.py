from .stream_metrics import AverageMeter, StreamSegMetrics
