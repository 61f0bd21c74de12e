"""
Codebase for "Improved Denoising Diffusion Probabilistic Models" (small CPU variant).
"""
