from .history_buffer import HistoryBuffer
from .message_hub import MessageHub

__all__ = ['HistoryBuffer', 'MessageHub']
