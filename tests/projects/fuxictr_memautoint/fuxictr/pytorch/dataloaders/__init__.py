from .rank_dataloader import RankDataLoader  # noqa: F401
