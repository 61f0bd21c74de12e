def get_config(**overrides):
    config = {
        'num_series': 16,
        'series_len': 2000,
        'input_size': 12,
        'output_size': 6,
        'chunk_len': 24,
        'state_hsize': 32,
        'learning_rate': 3e-3,
        'gradient_clipping': 20,
        'level_variability_penalty': 10.0,
        'training_tau': 0.5,
        'log_every': 100,
        'val_every': 10,
        'device': 'cpu',
    }
    config.update(overrides)
    return config
