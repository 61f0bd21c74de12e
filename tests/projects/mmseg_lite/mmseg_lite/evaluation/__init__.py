from .metrics import IoUMetric

__all__ = ['IoUMetric']
