import numpy as np
import os, sys, time, datetime
import argparse


timestamp = time.time()
timestamp = datetime.datetime.fromtimestamp(int(timestamp)).strftime('%Y-%m-%d %H-%M-%S')
git_rev, git_branch = 'unknown', 'unknown'


parser = argparse.ArgumentParser(description="argument for GraphSAINT training")
parser.add_argument("--num_cpu_core", default=1, type=int, help="Number of CPU cores for parallel sampling")
parser.add_argument("--data_prefix", default="synthetic", type=str, help="prefix identifying training data")
parser.add_argument("--dir_log", default=".", type=str, help="base directory for logging and saving embeddings")
parser.add_argument("--gpu", default=-1, type=int, help="which GPU to use")
parser.add_argument("--eval_train_every", default=1, type=int, help="How often to evaluate training subgraph accuracy")
parser.add_argument("--train_config", default="train_config/synthetic_rw.json", type=str, help="path to the configuration of training")
parser.add_argument("--dtype", default="s", type=str, help="d for double, s for single precision floating point")
parser.add_argument("--cpu_eval", default=False, action="store_true", help="whether to use CPU to do evaluation")
parser.add_argument("--quiet", default=True, action="store_true", help="suppress per-epoch printing")
# parse nothing at import time so that the package can be imported as a library
args_global = parser.parse_args([])


NUM_PAR_SAMPLER = args_global.num_cpu_core
SAMPLES_PER_PROC = -(-(200 // NUM_PAR_SAMPLER))  # round up division

EVAL_VAL_EVERY_EP = 1

# global vars

f_mean = lambda l: sum(l) / len(l)

DTYPE = "float32" if args_global.dtype == 's' else "float64"
