class HParams(object):
    """Minimal stand-in for tf.contrib.training.HParams."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)

    def parse(self, hparams_string):
        if not hparams_string:
            return self
        for pair in hparams_string.split(","):
            name, value = pair.split("=")
            current = getattr(self, name)
            if isinstance(current, bool):
                value = value.lower() in ("1", "true", "yes")
            else:
                value = type(current)(value)
            setattr(self, name, value)
        return self

    def values(self):
        return dict(self.__dict__)


def create_hparams(hparams_string=None, verbose=False):
    """Create model hyperparameters. Parse nondefault from given string."""

    hparams = HParams(
        ################################
        # Experiment Parameters        #
        ################################
        epochs=500,
        iters_per_checkpoint=1000,
        seed=1234,
        distributed_run=False,
        ignore_layers=['embedding.weight'],

        ################################
        # Data Parameters             #
        ################################
        n_train_items=256,
        n_val_items=8,
        min_text_len=8,
        max_text_len=12,
        min_mel_frames=12,
        max_mel_frames=20,

        ################################
        # Model Parameters             #
        ################################
        n_symbols=40,
        symbols_embedding_dim=32,

        # Encoder parameters
        encoder_kernel_size=5,
        encoder_n_convolutions=2,
        encoder_embedding_dim=32,

        # Long-form training: consecutive batches hold consecutive sentences
        # of the same paragraphs; the decoder sees a smoothed summary of the
        # paragraph text read so far.
        use_paragraph_context=True,
        paragraph_context_decay=0.5,

        # Decoder parameters
        n_mel_channels=16,
        n_frames_per_step=1,  # currently only 1 is supported
        decoder_rnn_dim=32,
        prenet_dim=16,
        max_decoder_steps=100,
        gate_threshold=0.5,
        p_attention_dropout=0.1,
        p_decoder_dropout=0.1,

        # Attention parameters
        attention_rnn_dim=32,
        attention_dim=16,

        # Location Layer parameters
        attention_location_n_filters=4,
        attention_location_kernel_size=7,

        # Mel-post processing network parameters
        postnet_embedding_dim=16,
        postnet_kernel_size=5,
        postnet_n_convolutions=3,

        ################################
        # Optimization Hyperparameters #
        ################################
        use_saved_learning_rate=False,
        learning_rate=1e-3,
        weight_decay=1e-6,
        grad_clip_thresh=1.0,
        batch_size=4,
        mask_padding=True,  # set model's padded outputs to padded values
        gate_ema_decay=0.98,
    )

    if hparams_string:
        hparams.parse(hparams_string)

    if verbose:
        print('Final parsed hparams: %s', hparams.values())

    return hparams
