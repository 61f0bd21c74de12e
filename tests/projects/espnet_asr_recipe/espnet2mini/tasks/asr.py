"""ASR task (trimmed port of espnet2.tasks.asr): class choices + build_model."""
import logging
from typing import Any, Dict

import torch

from espnet2mini.asr.ctc import CTC
from espnet2mini.asr.decoder.transformer_decoder import TransformerDecoder
from espnet2mini.asr.encoder.rnn_encoder import RNNEncoder
from espnet2mini.asr.espnet_model import ESPnetASRModel
from espnet2mini.asr.frontend.fbank import LearnableFbank
from espnet2mini.layers.online_mvn import OnlineMVN
from espnet2mini.layers.utterance_mvn import UtteranceMVN
from espnet2mini.tasks.abs_task import AbsTask
from espnet2mini.train.dataset import CommonCollateFn, ToneSpeechDataset


class ClassChoices:
    def __init__(self, name, classes, default=None, optional=False):
        self.name = name
        self.classes = {k.lower(): v for k, v in classes.items()}
        self.default = default
        self.optional = optional

    def get_class(self, name):
        if name is None and self.optional:
            return None
        return self.classes[name.lower()]


frontend_choices = ClassChoices("frontend", classes=dict(fbank=LearnableFbank), default="fbank",
                                optional=True)
normalize_choices = ClassChoices(
    "normalize",
    classes=dict(online_mvn=OnlineMVN, utterance_mvn=UtteranceMVN),
    default="utterance_mvn",
    optional=True,
)
encoder_choices = ClassChoices("encoder", classes=dict(rnn=RNNEncoder), default="rnn")
decoder_choices = ClassChoices("decoder", classes=dict(transformer=TransformerDecoder),
                               default="transformer", optional=True)


def make_token_list(n_tokens: int = 20):
    return ["<blank>", "<unk>"] + [f"t{i}" for i in range(n_tokens)] + ["<sos/eos>"]


class ASRTask(AbsTask):
    # If you need more than one optimizers, change this value
    num_optimizers: int = 1

    @classmethod
    def build_iter_factory(cls, args: Dict[str, Any], mode: str):
        token_list = make_token_list()
        if mode == "train":
            dataset = ToneSpeechDataset(args["num_train_utts"], token_list, seed=args["seed"])
        else:
            dataset = ToneSpeechDataset(args["num_valid_utts"], token_list, seed=args["seed"] + 1)

        def factory(epoch: int):
            g = torch.Generator().manual_seed(args["seed"] + epoch)
            return torch.utils.data.DataLoader(
                dataset,
                batch_size=args["batch_size"],
                shuffle=(mode == "train"),
                collate_fn=CommonCollateFn(float_pad_value=0.0, int_pad_value=-1),
                generator=g,
            )

        return factory

    @classmethod
    def build_model(cls, args: Dict[str, Any]) -> ESPnetASRModel:
        token_list = make_token_list()
        vocab_size = len(token_list)
        logging.info(f"Vocabulary size: {vocab_size }")

        # 1. frontend
        frontend_class = frontend_choices.get_class(args["frontend"])
        frontend = frontend_class(**args["frontend_conf"])
        input_size = frontend.output_size()

        # 2. Normalization layer
        if args.get("normalize") is not None:
            normalize_class = normalize_choices.get_class(args["normalize"])
            normalize = normalize_class(**args["normalize_conf"])
        else:
            normalize = None

        # 4. Encoder
        encoder_class = encoder_choices.get_class(args["encoder"])
        encoder = encoder_class(input_size=input_size, **args["encoder_conf"])
        encoder_output_size = encoder.output_size()

        # 5. Decoder
        decoder_class = decoder_choices.get_class(args["decoder"])
        decoder = decoder_class(
            vocab_size=vocab_size,
            encoder_output_size=encoder_output_size,
            **args["decoder_conf"],
        )

        # 6. CTC
        ctc = CTC(odim=vocab_size, encoder_output_size=encoder_output_size)

        # 8. Build model
        model = ESPnetASRModel(
            vocab_size=vocab_size,
            frontend=frontend,
            normalize=normalize,
            encoder=encoder,
            decoder=decoder,
            ctc=ctc,
            token_list=token_list,
            **args["model_conf"],
        )
        return model
