# Builds pytorch-soft-actor-critic's SAC as main.py does (main.py's defaults, a Box action space instead of MuJoCo),
# both policy types, select_action and one update.
import argparse
import os
import sys

sys.path.insert(0, os.getcwd())
import numpy as np, torch, gym
from sac import SAC
from replay_memory import ReplayMemory

torch.manual_seed(0)
space = gym.spaces.Box(low=np.array([-2.0, -1.0], dtype=np.float32), high=np.array([2.0, 1.0], dtype=np.float32))
for policy in ("Gaussian", "Deterministic"):
    args = argparse.Namespace(
        policy=policy,
        gamma=0.99,
        tau=0.005,
        lr=0.0003,
        alpha=0.2,
        automatic_entropy_tuning=False,
        target_update_interval=1,
        hidden_size=32,
        cuda=False,
    )
    agent = SAC(8, space, args)
    mem = ReplayMemory(1000, 0)
    for _ in range(16):
        s = np.random.randn(8).astype(np.float32)
        mem.push(s, agent.select_action(s), 1.0, s, 1.0)
    print(policy, agent.update_parameters(mem, 8, 0))
