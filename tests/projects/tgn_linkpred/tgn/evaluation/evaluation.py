import math

import torch


def average_precision(true_label, pred_score):
  order = torch.argsort(pred_score, descending=True)
  y = true_label[order]
  hits = torch.cumsum(y, dim=0)
  precision = hits / torch.arange(1, len(y) + 1)
  return (precision * y).sum().item() / max(y.sum().item(), 1.)


def eval_edge_prediction(model, negative_edge_sampler, data, n_neighbors, batch_size=200):
  # Ensures the random sampler uses a seed for evaluation (i.e. we sample always the same
  # negatives for validation / test set)
  assert negative_edge_sampler.seed is not None
  negative_edge_sampler.reset_random_state()

  val_ap, val_acc = [], []
  with torch.no_grad():
    model = model.eval()
    TEST_BATCH_SIZE = batch_size
    num_test_instance = len(data.sources)
    num_test_batch = math.ceil(num_test_instance / TEST_BATCH_SIZE)

    for k in range(num_test_batch):
      s_idx = k * TEST_BATCH_SIZE
      e_idx = min(num_test_instance, s_idx + TEST_BATCH_SIZE)
      sources_batch = data.sources[s_idx:e_idx]
      destinations_batch = data.destinations[s_idx:e_idx]
      timestamps_batch = data.timestamps[s_idx:e_idx]
      edge_idxs_batch = data.edge_idxs[s_idx: e_idx]

      size = len(sources_batch)
      _, negative_samples = negative_edge_sampler.sample(size)

      pos_prob, neg_prob = model.compute_edge_probabilities(sources_batch, destinations_batch,
                                                            negative_samples, timestamps_batch,
                                                            edge_idxs_batch, n_neighbors)

      pred_score = torch.cat([pos_prob.squeeze(-1), neg_prob.squeeze(-1)])
      true_label = torch.cat([torch.ones(size), torch.zeros(size)])

      val_ap.append(average_precision(true_label, pred_score))
      val_acc.append(((pred_score > 0.5).float() == true_label).float().mean().item())

  return sum(val_ap) / len(val_ap), sum(val_acc) / len(val_acc)
