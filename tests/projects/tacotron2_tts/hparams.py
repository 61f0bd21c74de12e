class HParams(object):
    """Minimal stand-in for tf.contrib.training.HParams."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def parse(self, string):
        if string:
            for pair in string.split(","):
                name, value = pair.split("=")
                old = getattr(self, name)
                setattr(self, name, type(old)(value) if not isinstance(old, bool) else value == "True")
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
        fp16_run=False,
        distributed_run=False,
        ignore_layers=['embedding.weight'],

        ################################
        # Data Parameters             #
        ################################
        n_utterances=48,
        min_text_len=7,   # fixed-length corpus: every batch has the same shapes
        max_text_len=7,
        frames_per_char=2,

        ################################
        # Model Parameters             #
        ################################
        n_symbols=24,
        symbols_embedding_dim=32,
        n_mel_channels=16,

        # Encoder parameters
        encoder_kernel_size=5,
        encoder_n_convolutions=2,
        encoder_embedding_dim=32,

        # Speaker / global style
        n_speakers=4,
        speaker_embedding_dim=128,
        style_momentum=0.9,

        # Decoder parameters
        n_frames_per_step=1,
        decoder_rnn_dim=64,
        prenet_dim=32,
        max_decoder_steps=100,
        gate_threshold=0.5,
        p_attention_dropout=0.1,
        p_decoder_dropout=0.1,

        # Attention parameters
        attention_rnn_dim=64,
        attention_dim=32,

        # Location Layer parameters
        attention_location_n_filters=8,
        attention_location_kernel_size=7,

        # Mel-post processing network parameters
        postnet_embedding_dim=32,
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
        mask_padding=True  # set model's padded outputs to padded values
    )

    if hparams_string:
        hparams.parse(hparams_string)

    if verbose:
        print('Final parsed hparams: %s', hparams.values())

    return hparams
