from model.net import StudentNet, TeacherNet, loss_fn, loss_fn_kd
from model.data_loader import fetch_batches, TeacherLogitCache

__all__ = ["StudentNet", "TeacherNet", "loss_fn", "loss_fn_kd", "fetch_batches", "TeacherLogitCache"]
