"""
Codebase for "Diffusion Models Beat GANS on Image Synthesis", small CPU port.
"""
