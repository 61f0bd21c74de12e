"""Tiny HiFi-GAN (V1-style) vocoder training package, laid out like jik876/hifi-gan."""
