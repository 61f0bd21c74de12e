from .rank_dataloader import RankDataLoader
