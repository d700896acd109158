# The model section of tianshou's test/offline/test_cql.py (its defaults, Pendulum-v1), then one CQL update on a
# small random batch instead of the gathered expert buffer and the trainer.
import os
import sys

sys.path.insert(0, os.getcwd())
import numpy as np, torch, gymnasium as gym
from tianshou.algorithm import CQL
from tianshou.algorithm.modelfree.sac import SACPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, ReplayBuffer
from tianshou.utils.net.common import Net
from tianshou.utils.net.continuous import ContinuousActorProbabilistic, ContinuousCritic
from tianshou.utils.space_info import SpaceInfo
from tianshou.utils.torch_utils import policy_within_training_step

torch.manual_seed(0)
np.random.seed(0)
env = gym.make("Pendulum-v1")
info = SpaceInfo.from_env(env)
state_shape, action_shape = info.observation_info.obs_shape, info.action_info.action_shape
net_a = Net(state_shape=state_shape, action_shape=action_shape, hidden_sizes=[64, 64])
actor = ContinuousActorProbabilistic(
    preprocess_net=net_a, action_shape=action_shape, unbounded=True, conditioned_sigma=True
)
net_c = Net(state_shape=state_shape, action_shape=action_shape, hidden_sizes=[64, 64], concat=True)
critic = ContinuousCritic(preprocess_net=net_c)
policy = SACPolicy(actor=actor, action_scaling=False, action_space=env.action_space)
algorithm = CQL(
    policy=policy,
    policy_optim=AdamOptimizerFactory(lr=1e-3),
    critic=critic,
    critic_optim=AdamOptimizerFactory(lr=1e-3),
    cql_alpha_lr=1e-3,
    cql_weight=1.0,
    tau=0.005,
    gamma=0.99,
    alpha=0.2,
    temperature=1.0,
    with_lagrange=True,
    lagrange_threshold=10.0,
    min_action=info.action_info.min_action,
    max_action=info.action_info.max_action,
)
buf = ReplayBuffer(64)
obs, _ = env.reset(seed=0)
for _ in range(64):
    act = env.action_space.sample()
    obs2, rew, term, trunc, _ = env.step(act)
    buf.add(Batch(obs=obs, act=act, rew=rew, terminated=term, truncated=trunc, obs_next=obs2, info={}))
    obs = obs2
buf = algorithm.process_buffer(buf)  # what the offline trainer does first (calibration returns)
before = algorithm.cql_log_alpha.detach().clone()
with policy_within_training_step(algorithm.policy):
    print(algorithm.update(sample_size=32, buffer=buf))
print("cql_log_alpha", before.item(), "->", algorithm.cql_log_alpha.item())
