"""CPU-sized re-implementation of the k2-fsa/icefall training stack (library + conformer_ctc recipe),
with torch's ctc_loss in place of k2."""
from .utils import AttributeDict, MetricsTracker
