import os
import sys
import json
import logging
import tempfile
from collections import defaultdict

import torch

MATPLOTLIB_FLAG = False

logging.basicConfig(stream=sys.stdout, level=logging.WARNING)
logger = logging


def load_checkpoint(checkpoint_path, model, optimizer=None):
  assert os.path.isfile(checkpoint_path)
  checkpoint_dict = torch.load(checkpoint_path, map_location='cpu')
  iteration = checkpoint_dict['iteration']
  learning_rate = checkpoint_dict['learning_rate']
  if optimizer is not None:
    optimizer.load_state_dict(checkpoint_dict['optimizer'])
  saved_state_dict = checkpoint_dict['model']
  state_dict = model.state_dict()
  new_state_dict= {}
  for k, v in state_dict.items():
    try:
      new_state_dict[k] = saved_state_dict[k]
    except:
      logger.info("%s is not in the checkpoint" % k)
      new_state_dict[k] = v
  model.load_state_dict(new_state_dict)
  logger.info("Loaded checkpoint '{}' (iteration {})" .format(checkpoint_path, iteration))
  return model, optimizer, learning_rate, iteration


def save_checkpoint(model, optimizer, learning_rate, iteration, checkpoint_path):
  logger.info("Saving model and optimizer state at iteration {} to {}".format(iteration, checkpoint_path))
  state_dict = model.state_dict()
  torch.save({'model': state_dict,
              'iteration': iteration,
              'optimizer': optimizer.state_dict(),
              'learning_rate': learning_rate}, checkpoint_path)


class MemoryWriter:
  """Drop-in for tensorboard's SummaryWriter that keeps everything in memory
  (tensorboard is not available on the training nodes); the curves are dumped
  to JSON at the end of training."""
  def __init__(self, log_dir):
    self.log_dir = log_dir
    self.scalars = defaultdict(list)
    self.images = defaultdict(list)
    self.audios = {}

  def add_scalar(self, tag, scalar_value, global_step):
    self.scalars[tag].append((global_step, scalar_value))  # known-miss: TLK102

  def add_image(self, tag, img_tensor, global_step, dataformats='HWC'):
    self.images[tag].append((global_step, img_tensor))

  def add_audio(self, tag, snd_tensor, global_step, sample_rate=22050):
    self.audios[tag] = (global_step, snd_tensor, sample_rate)

  def add_histogram(self, tag, values, global_step):
    pass

  def flush(self):
    with open(os.path.join(self.log_dir, "scalars.json"), "w") as f:
      json.dump({k: [(s, float(v)) for s, v in vals] for k, vals in self.scalars.items()}, f)


def summarize(writer, global_step, scalars={}, histograms={}, images={}, audios={}, audio_sampling_rate=22050):
  for k, v in scalars.items():
    writer.add_scalar(k, v, global_step)
  for k, v in histograms.items():
    writer.add_histogram(k, v, global_step)
  for k, v in images.items():
    writer.add_image(k, v, global_step, dataformats='HWC')
  for k, v in audios.items():
    writer.add_audio(k, v, global_step, audio_sampling_rate)


def get_logger(model_dir, filename="train.log"):
  global logger
  logger = logging.getLogger(os.path.basename(model_dir))
  logger.setLevel(logging.INFO)
  logger.propagate = False
  formatter = logging.Formatter("%(asctime)s\t%(name)s\t%(levelname)s\t%(message)s")
  if not os.path.exists(model_dir):
    os.makedirs(model_dir)
  h = logging.FileHandler(os.path.join(model_dir, filename))
  h.setLevel(logging.INFO)
  h.setFormatter(formatter)
  logger.addHandler(h)
  return logger


def get_hparams_from_dict(config, model_dir=None):
  hparams = HParams(**config)
  hparams.model_dir = model_dir or tempfile.mkdtemp(prefix="vits_")
  return hparams


def get_hparams_from_file(config_path):
  with open(config_path, "r") as f:
    data = f.read()
  config = json.loads(data)
  hparams = HParams(**config)
  return hparams


class HParams():
  def __init__(self, **kwargs):
    for k, v in kwargs.items():
      if type(v) == dict:
        v = HParams(**v)
      self[k] = v

  def keys(self):
    return self.__dict__.keys()

  def items(self):
    return self.__dict__.items()

  def values(self):
    return self.__dict__.values()

  def __len__(self):
    return len(self.__dict__)

  def __getitem__(self, key):
    return getattr(self, key)

  def __setitem__(self, key, value):
    return setattr(self, key, value)

  def __contains__(self, key):
    return key in self.__dict__

  def __repr__(self):
    return self.__dict__.__repr__()
