"""Link-prediction evaluation on a held-out time span (average precision and AUC per batch)."""
import math

import torch

from utils import average_precision, roc_auc


def eval_edge_prediction(model, negative_edge_sampler, data, batch_size=200):
    # Ensures the random sampler uses a seed for evaluation (i.e. we sample always the same
    # negatives for validation / test set)
    assert negative_edge_sampler.seed is not None
    negative_edge_sampler.reset_random_state()

    val_ap, val_auc = [], []
    model = model.eval()
    num_test_instance = len(data.sources)
    num_test_batch = math.ceil(num_test_instance / batch_size)
    for k in range(num_test_batch):
        s_idx = k * batch_size
        e_idx = min(num_test_instance, s_idx + batch_size)
        sources_batch = data.sources[s_idx:e_idx]
        destinations_batch = data.destinations[s_idx:e_idx]
        timestamps_batch = data.timestamps[s_idx:e_idx]
        edge_idxs_batch = data.edge_idxs[s_idx:e_idx]

        size = len(sources_batch)
        _, negative_samples = negative_edge_sampler.sample(size)
        pos_prob, neg_prob = model.compute_edge_probabilities(sources_batch, destinations_batch, negative_samples, timestamps_batch, edge_idxs_batch)  # expect: TLK102 (memory.py: Memory.store_raw_messages extends the per-node message lists with the attached messages of every batch) known-miss: TLK103 (the loop runs without no_grad; TGN.compute_temporal_embeddings in tgn.py writes the GRU-updated memory back with Memory.set_memory and stores messages built from it in memory.py, and the next batch's forward reads both, so the memory's graph grows over the whole evaluation; only the scores are detached)

        pred_score = torch.cat([pos_prob, neg_prob]).detach()
        true_label = torch.cat([torch.ones(size), torch.zeros(size)])
        val_ap.append(average_precision(pred_score, true_label))
        val_auc.append(roc_auc(pred_score, true_label))
    return sum(val_ap) / len(val_ap), sum(val_auc) / len(val_auc)


@torch.no_grad()
def eval_node_classification(tgn, decoder, data, batch_size=200):
    pred_prob = []
    num_instance = len(data.sources)
    for s_idx in range(0, num_instance, batch_size):
        e_idx = min(num_instance, s_idx + batch_size)
        sources_batch = data.sources[s_idx:e_idx]
        destinations_batch = data.destinations[s_idx:e_idx]
        source_embedding, _, _ = tgn.compute_temporal_embeddings(
            sources_batch, destinations_batch, destinations_batch, data.timestamps[s_idx:e_idx], data.edge_idxs[s_idx:e_idx]
        )
        pred_prob.append(decoder(source_embedding).sigmoid().squeeze(1))
    return roc_auc(torch.cat(pred_prob), data.labels)
