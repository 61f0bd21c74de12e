from pfrl.envs.toy import NoisyChainEnv  # NOQA
