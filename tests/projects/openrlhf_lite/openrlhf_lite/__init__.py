"""CPU-sized re-implementation of the OpenRLHF PPO stack (OpenRLHF/OpenRLHF, non-ray PPOTrainer)."""
