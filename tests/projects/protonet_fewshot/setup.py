from setuptools import find_packages, setup

setup(name="protonets", version="0.0.1", packages=find_packages())
