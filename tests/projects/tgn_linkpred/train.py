# Self-supervised temporal link prediction with TGN, modelled on
# twitter-research/tgn train_self_supervised.py (one epoch over a synthetic interaction stream).
import logging
import time

import torch

from tgn.evaluation.evaluation import eval_edge_prediction
from tgn.model.tgn import TGN
from tgn.utils.utils import EarlyStopMonitor, RandEdgeSampler
from tgn.utils.data_processing import InteractionStream, compute_time_statistics

logger = logging.getLogger(__name__)

BATCH_SIZE = 20
NUM_NEIGHBORS = 10
NUM_EPOCH = 1
BACKPROP_EVERY = 2
USE_MEMORY = True
LEARNING_RATE = 1e-3
MEMORY_DIM = 32
MESSAGE_DIM = 32


def main(steps: int) -> dict:
  torch.manual_seed(0)
  device = torch.device("cpu")

  stream = InteractionStream(batch_size=BATCH_SIZE, n_node_features=MEMORY_DIM)
  num_batch = steps
  stat_data = stream.span(0, 10)
  mean_time_shift_src, std_time_shift_src, mean_time_shift_dst, std_time_shift_dst = \
    compute_time_statistics(stat_data.sources, stat_data.destinations, stat_data.timestamps)

  train_rand_sampler = RandEdgeSampler(stat_data.sources, stat_data.destinations)
  val_rand_sampler = RandEdgeSampler(stat_data.sources, stat_data.destinations, seed=0)

  tgn = TGN(node_features=stream.node_features, edge_features=stream.edge_features,
            device=device, n_layers=1, n_heads=2, dropout=0.1, use_memory=USE_MEMORY,
            message_dimension=MESSAGE_DIM, memory_dimension=MEMORY_DIM,
            memory_update_at_start=True, embedding_module_type="time",
            message_function="mlp", aggregator_type="last", memory_updater_type="gru",
            n_neighbors=NUM_NEIGHBORS,
            mean_time_shift_src=mean_time_shift_src, std_time_shift_src=std_time_shift_src,
            mean_time_shift_dst=mean_time_shift_dst, std_time_shift_dst=std_time_shift_dst)
  criterion = torch.nn.BCELoss()
  optimizer = torch.optim.Adam(tgn.parameters(), lr=LEARNING_RATE)
  tgn = tgn.to(device)

  val_aps = []
  epoch_times = []
  train_losses = []

  early_stopper = EarlyStopMonitor(max_round=5)
  for epoch in range(NUM_EPOCH):
    start_epoch = time.time()
    ### Training

    # Reinitialize memory of the model at the start of each epoch
    if USE_MEMORY:
      tgn.memory.__init_memory__()
    tgn.message_function.reset_stats()

    m_loss = []

    for k in range(0, num_batch, BACKPROP_EVERY):
      loss = 0
      optimizer.zero_grad()

      # Custom loop to allow to perform backpropagation only every a certain number of batches
      for j in range(BACKPROP_EVERY):
        batch_idx = k + j

        if batch_idx >= num_batch:
          continue

        batch = stream.batch(batch_idx)
        sources_batch, destinations_batch = batch.sources, batch.destinations
        edge_idxs_batch = batch.edge_idxs
        timestamps_batch = batch.timestamps

        size = len(sources_batch)
        _, negatives_batch = train_rand_sampler.sample(size)

        with torch.no_grad():
          pos_label = torch.ones(size, dtype=torch.float, device=device)
          neg_label = torch.zeros(size, dtype=torch.float, device=device)

        tgn = tgn.train()
        pos_prob, neg_prob = tgn.compute_edge_probabilities(sources_batch, destinations_batch, negatives_batch,  # known-false: TLK101
                                                            timestamps_batch, edge_idxs_batch, NUM_NEIGHBORS)

        loss += criterion(pos_prob.squeeze(), pos_label) + criterion(neg_prob.squeeze(), neg_label)

      loss /= BACKPROP_EVERY

      loss.backward()
      optimizer.step()
      m_loss.append(loss)  # expect: TLK102

      # Detach memory after 'BACKPROP_EVERY' number of batches so we don't backpropagate to
      # the start of time
      if USE_MEMORY:
        tgn.memory.detach_memory()

    epoch_time = time.time() - start_epoch
    epoch_times.append(epoch_time)

    ### Validation on the interactions that follow the training stream
    if USE_MEMORY:
      # Backup memory at the end of training, so later we can restore it
      train_memory_backup = tgn.memory.backup_memory()

    val_data = stream.span(num_batch, 2)
    val_ap, val_acc = eval_edge_prediction(model=tgn, negative_edge_sampler=val_rand_sampler,
                                           data=val_data, n_neighbors=NUM_NEIGHBORS,
                                           batch_size=BATCH_SIZE)
    if USE_MEMORY:
      tgn.memory.restore_memory(train_memory_backup)

    val_aps.append(val_ap)
    train_losses.append(float(sum(m_loss) / len(m_loss)))
    logger.info('epoch: {} took {:.2f}s'.format(epoch, epoch_time))

    if early_stopper.early_stop_check(val_ap):
      break

  return {"train_loss": train_losses[-1], "val_ap": val_aps[-1], "val_acc": val_acc,
          "message_norm": tgn.message_function.mean_message_norm(),
          "memory_running_norm": float(tgn.memory_updater.running_norm)}


if __name__ == "__main__":
  print(main(6))
