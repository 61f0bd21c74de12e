"""Env package."""

from tianshou_lite.env.venvs import DummyVectorEnv

__all__ = ["DummyVectorEnv"]
