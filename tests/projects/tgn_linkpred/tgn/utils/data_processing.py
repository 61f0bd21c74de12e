import torch


class Data:
  def __init__(self, sources, destinations, timestamps, edge_idxs, labels):
    self.sources = sources
    self.destinations = destinations
    self.timestamps = timestamps
    self.edge_idxs = edge_idxs
    self.labels = labels
    self.n_interactions = len(sources)
    self.unique_nodes = set(sources.tolist()) | set(destinations.tolist())
    self.n_unique_nodes = len(self.unique_nodes)


class InteractionStream:
  """Synthetic bipartite user-item interaction stream (a stand-in for the wikipedia / reddit
  csv files): batches are generated on the fly with strictly increasing timestamps, so the
  stream can be as long as needed without being stored."""

  def __init__(self, n_users=30, n_items=20, n_edge_features=8, n_node_features=32,
               batch_size=20, seed=0):
    self.n_users = n_users
    self.n_items = n_items
    self.n_nodes = n_users + n_items
    self.batch_size = batch_size
    self.seed = seed
    g = torch.Generator().manual_seed(seed)
    self.node_features = torch.zeros(self.n_nodes, n_node_features)
    self.edge_features = torch.randn(512, n_edge_features, generator=g)

  def batch(self, batch_idx):
    g = torch.Generator().manual_seed(self.seed * 100003 + batch_idx)
    size = self.batch_size
    sources = torch.randint(0, self.n_users, (size,), generator=g)
    destinations = self.n_users + torch.randint(0, self.n_items, (size,), generator=g)
    timestamps = batch_idx * size + torch.arange(size) + 1
    edge_idxs = (batch_idx * size + torch.arange(size)) % self.edge_features.shape[0]
    labels = torch.zeros(size)
    return Data(sources, destinations, timestamps, edge_idxs, labels)

  def span(self, start_batch, n_batches):
    parts = [self.batch(b) for b in range(start_batch, start_batch + n_batches)]
    return Data(torch.cat([p.sources for p in parts]), torch.cat([p.destinations for p in parts]),
                torch.cat([p.timestamps for p in parts]), torch.cat([p.edge_idxs for p in parts]),
                torch.cat([p.labels for p in parts]))


def compute_time_statistics(sources, destinations, timestamps):
  last_timestamp_sources = dict()
  last_timestamp_dst = dict()
  all_timediffs_src = []
  all_timediffs_dst = []
  for k in range(len(sources)):
    source_id = int(sources[k])
    dest_id = int(destinations[k])
    c_timestamp = float(timestamps[k])
    if source_id not in last_timestamp_sources.keys():
      last_timestamp_sources[source_id] = 0
    if dest_id not in last_timestamp_dst.keys():
      last_timestamp_dst[dest_id] = 0
    all_timediffs_src.append(c_timestamp - last_timestamp_sources[source_id])
    all_timediffs_dst.append(c_timestamp - last_timestamp_dst[dest_id])
    last_timestamp_sources[source_id] = c_timestamp
    last_timestamp_dst[dest_id] = c_timestamp
  src = torch.tensor(all_timediffs_src)
  dst = torch.tensor(all_timediffs_dst)
  return src.mean().item(), src.std().item(), dst.mean().item(), dst.std().item()
