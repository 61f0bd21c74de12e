from pfrl.utils.batch_states import batch_states  # NOQA
from pfrl.utils.contexts import evaluating  # NOQA
from pfrl.utils.mode_of_distribution import mode_of_distribution  # NOQA
