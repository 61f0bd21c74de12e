# Modelled on: https://github.com/damitkwr/ESRNN-GPU
import torch

from es_rnn import get_config, SeriesDataset, make_synthetic_series, ESRNN, ESRNNTrainer


def main(n_steps=80, seed=0, **overrides):
    torch.manual_seed(seed)
    config = get_config(**overrides)
    series = make_synthetic_series(config['num_series'], config['series_len'], seed=seed)
    dataset = SeriesDataset(series, config['chunk_len'], config['output_size'])
    assert n_steps <= len(dataset), 'not enough chunks for %d steps' % n_steps
    model = ESRNN(config['num_series'], config)
    trainer = ESRNNTrainer(model, dataset, config)
    curve = trainer.train(n_steps)
    return trainer, curve


if __name__ == '__main__':
    main()
