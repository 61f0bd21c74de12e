from setuptools import setup

setup(name="mingpt", version="0.0.1", package_dir={"": "src"}, packages=["mingpt", "mingpt.utils"])
