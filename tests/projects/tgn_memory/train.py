# Modelled on twitter-research/tgn (train_self_supervised.py, train_supervised.py, model/tgn.py,
# modules/memory.py, modules/memory_updater.py, modules/message_aggregator.py,
# evaluation/evaluation.py, utils/utils.py): a temporal graph network whose node memory is
# updated from the previous batch's interaction messages, trained for link prediction batch by
# batch in time order, then a node classifier trained on its embeddings. Written anew and much
# smaller; a random interaction graph stands in for the Wikipedia/Reddit data.
import math
from dataclasses import dataclass

import torch

from evaluation import eval_edge_prediction, eval_node_classification
from tgn import TGN
from utils import AverageMeterSet, EarlyStopMonitor, RandEdgeSampler, backward_step

USE_MEMORY = True
BACKPROP_EVERY = 2


@dataclass
class Data:
    sources: torch.Tensor
    destinations: torch.Tensor
    timestamps: torch.Tensor
    edge_idxs: torch.Tensor
    labels: torch.Tensor


def get_data(n_nodes=20, n_edges=160, edge_dim=4, val_ratio=0.25):
    sources = torch.randint(0, n_nodes // 2, (n_edges,))
    destinations = torch.randint(n_nodes // 2, n_nodes, (n_edges,))
    timestamps = torch.sort(torch.rand(n_edges) * 100).values
    labels = (torch.rand(n_edges) < 0.3).float()
    full = Data(sources, destinations, timestamps, torch.arange(n_edges), labels)
    split = int(n_edges * (1 - val_ratio))
    train = Data(*(getattr(full, f)[:split] for f in ("sources", "destinations", "timestamps", "edge_idxs", "labels")))
    val = Data(*(getattr(full, f)[split:] for f in ("sources", "destinations", "timestamps", "edge_idxs", "labels")))
    return torch.randn(n_edges, edge_dim), full, train, val


def train_link_prediction(tgn, train_data, val_data, n_epoch=2, batch_size=20, lr=1e-3, patience=3):
    criterion = torch.nn.BCELoss()
    optimizer = torch.optim.Adam(tgn.parameters(), lr=lr)
    train_rand_sampler = RandEdgeSampler(train_data.sources, train_data.destinations)
    val_rand_sampler = RandEdgeSampler(val_data.sources, val_data.destinations, seed=0)
    early_stopper = EarlyStopMonitor(max_round=patience)
    meters = AverageMeterSet()
    num_instance = len(train_data.sources)
    num_batch = math.ceil(num_instance / batch_size)

    for epoch in range(n_epoch):
        # Reinitialize memory of the model at the start of each epoch
        if USE_MEMORY:
            tgn.memory.__init_memory__()
        meters.reset()
        m_loss = []
        for k in range(0, num_batch, BACKPROP_EVERY):
            loss = 0
            optimizer.zero_grad()
            # Custom loop to allow to perform backpropagation only every a certain number of batches
            for j in range(BACKPROP_EVERY):
                batch_idx = k + j
                if batch_idx >= num_batch:
                    continue
                start_idx = batch_idx * batch_size
                end_idx = min(num_instance, start_idx + batch_size)
                sources_batch = train_data.sources[start_idx:end_idx]
                destinations_batch = train_data.destinations[start_idx:end_idx]
                edge_idxs_batch = train_data.edge_idxs[start_idx:end_idx]
                timestamps_batch = train_data.timestamps[start_idx:end_idx]

                size = len(sources_batch)
                _, negatives_batch = train_rand_sampler.sample(size)
                with torch.no_grad():
                    pos_label = torch.ones(size, dtype=torch.float)
                    neg_label = torch.zeros(size, dtype=torch.float)

                tgn = tgn.train()
                pos_prob, neg_prob = tgn.compute_edge_probabilities(sources_batch, destinations_batch, negatives_batch, timestamps_batch, edge_idxs_batch)
                loss += criterion(pos_prob.squeeze(), pos_label) + criterion(neg_prob.squeeze(), neg_label)

            loss /= BACKPROP_EVERY
            # The stored messages were built from this batch's graph: keep it through the step.
            backward_step(loss, optimizer, retain_graph=USE_MEMORY)  # expect: TLK201 -- backward_step in utils.py passes the retain_graph keyword, here the module constant USE_MEMORY = True, to loss.backward; no second backward goes through this graph, and the memory is detached just below
            m_loss.append(loss.item())
            # Detach memory after 'BACKPROP_EVERY' number of batches so we don't backpropagate to
            # the start of time
            if USE_MEMORY:
                tgn.memory.detach_memory()
            meters.update(n=size, loss=loss, pos_prob=pos_prob.mean().item())  # expect: TLK101 (utils.py)

        # Validation uses the memory of the training set, which it updates as it goes; the
        # training memory is restored afterwards.
        if USE_MEMORY:
            train_memory_backup = tgn.memory.backup_memory()
        val_ap, val_auc = eval_edge_prediction(tgn, val_rand_sampler, val_data, batch_size=batch_size)
        if USE_MEMORY:
            tgn.memory.restore_memory(train_memory_backup)
        averages = meters.averages()
        print(f"epoch {epoch}: mean loss {sum(m_loss) / len(m_loss):.4f} (meter {averages['loss/avg']:.4f}) val ap {val_ap:.3f} auc {val_auc:.3f}")
        if early_stopper.early_stop_check(val_ap):
            break
    return tgn


def train_node_classification(tgn, train_data, val_data, n_epoch=2, batch_size=20, lr=1e-3):
    """Node classification on top of the frozen TGN: embeddings under no_grad, a small decoder trained."""
    decoder = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=lr)
    decoder_loss_criterion = torch.nn.BCELoss()
    tgn = tgn.eval()
    for epoch in range(n_epoch):
        tgn.memory.__init_memory__()
        decoder = decoder.train()
        loss = 0
        num_instance = len(train_data.sources)
        for start_idx in range(0, num_instance, batch_size):
            end_idx = min(num_instance, start_idx + batch_size)
            sources_batch = train_data.sources[start_idx:end_idx]
            destinations_batch = train_data.destinations[start_idx:end_idx]
            labels_batch = train_data.labels[start_idx:end_idx]
            with torch.no_grad():
                source_embedding, destination_embedding, _ = tgn.compute_temporal_embeddings(
                    sources_batch, destinations_batch, destinations_batch, train_data.timestamps[start_idx:end_idx], train_data.edge_idxs[start_idx:end_idx]
                )
            decoder_optimizer.zero_grad()
            pred = decoder(source_embedding).sigmoid().squeeze(1)
            decoder_loss = decoder_loss_criterion(pred, labels_batch)
            decoder_loss.backward()
            decoder_optimizer.step()
            loss += decoder_loss.item()
        val_auc = eval_node_classification(tgn, decoder, val_data, batch_size=batch_size)
        print(f"decoder epoch {epoch}: loss {loss / max(num_instance // batch_size, 1):.4f} val auc {val_auc:.3f}")
    return decoder


def main():
    torch.manual_seed(0)
    edge_features, full_data, train_data, val_data = get_data()
    tgn = TGN(n_nodes=20, edge_features=edge_features)
    tgn = train_link_prediction(tgn, train_data, val_data)
    return train_node_classification(tgn, train_data, val_data)


if __name__ == "__main__":
    main()
