"""Reinforcement-learning code: a policy, a value head, returns and advantages in NumPy."""
from typing import List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int, hidden: int = 64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs: Float[Tensor, "b obs_dim"]) -> Tuple[Tensor, Tensor]:
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)

    def act(self, obs: Float[np.ndarray, "obs_dim"]) -> Tuple[int, float]:
        with torch.no_grad():
            logits, value = self(torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0))
        dist = Categorical(logits=logits)
        action = dist.sample()
        return int(action.item()), float(value.item())


def discounted(rewards: Float[np.ndarray, "t"], gamma: float = 0.99) -> Float[np.ndarray, "t"]:
    out = np.zeros_like(rewards)
    running = 0.0
    for i in reversed(range(len(rewards))):
        running = rewards[i] + gamma * running
        out[i] = running
    return out


def gae(rewards: Float[np.ndarray, "t"], values: Float[np.ndarray, "t+1"],
        dones: Float[np.ndarray, "t"], gamma: float = 0.99,
        lam: float = 0.95) -> Float[np.ndarray, "t"]:
    adv = np.zeros_like(rewards)
    last = 0.0
    for i in reversed(range(len(rewards))):
        nonterminal = 1.0 - dones[i]
        delta = rewards[i] + gamma * values[i + 1] * nonterminal - values[i]
        last = delta + gamma * lam * nonterminal * last
        adv[i] = last
    return adv


def ppo_loss(logits: Float[Tensor, "b a"], actions: Int[Tensor, "b"],
             old_logp: Float[Tensor, "b"], adv: Float[Tensor, "b"],
             clip: float = 0.2) -> Tensor:
    logp = F.log_softmax(logits, dim=-1).gather(1, actions.unsqueeze(1)).squeeze(1)
    ratio = torch.exp(logp - old_logp)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - clip, 1 + clip) * adv
    return -torch.min(unclipped, clipped).mean()


def value_loss(pred: Float[Tensor, "b"], returns: Float[Tensor, "b"]) -> Tensor:
    return F.mse_loss(pred, returns)


def normalize(adv: Float[np.ndarray, "t"]) -> Float[np.ndarray, "t"]:
    return (adv - adv.mean()) / (adv.std() + 1e-8)


class Buffer:
    def __init__(self, obs_dim: int, size: int):
        self.obs = np.zeros((size, obs_dim), dtype=np.float32)
        self.actions = np.zeros(size, dtype=np.int64)
        self.rewards = np.zeros(size, dtype=np.float32)
        self.ptr = 0
        self.last: Optional[Tuple[int, float]] = None

    def store(self, obs: Float[np.ndarray, "obs_dim"], action: int, reward: float) -> None:
        self.obs[self.ptr] = obs
        self.actions[self.ptr] = action
        self.rewards[self.ptr] = reward
        self.ptr += 1
        self.last = (action, reward)

    def batch(self) -> Tuple[Tensor, Tensor]:
        obs = torch.from_numpy(self.obs[: self.ptr])
        acts = torch.from_numpy(self.actions[: self.ptr])
        return obs, acts


def epsilon_greedy(q: Float[np.ndarray, "a"], eps: float, rng: np.random.Generator) -> int:
    if rng.random() < eps:
        return int(rng.integers(len(q)))
    return int(np.argmax(q))


def rollout_lengths(episodes: List[List[float]]) -> List[int]:
    return [len(ep) for ep in episodes]
