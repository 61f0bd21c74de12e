from .synthetic import SyntheticSegDataset, collate

__all__ = ['SyntheticSegDataset', 'collate']
