"""A training script as people write it: dataset, model, losses, metrics."""
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor
from torch.utils.data import DataLoader, Dataset


@dataclass
class Config:
    lr: float = 1e-3
    epochs: int = 10
    batch_size: int = 32
    hidden: int = 128
    num_classes: int = 10
    device: str = "cpu"
    checkpoint: Optional[str] = None


class ArrayDataset(Dataset):
    def __init__(self, features: Float[np.ndarray, "n d"], labels: Int[np.ndarray, "n"]):
        self.features = torch.from_numpy(features).float()
        self.labels = torch.from_numpy(labels).long()

    def __len__(self) -> int:
        return len(self.features)

    def __getitem__(self, i: int) -> Tuple[Tensor, Tensor]:
        return self.features[i], self.labels[i]


class MLP(nn.Module):
    def __init__(self, d_in: int, hidden: int, num_classes: int, dropout: float = 0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x: Float[Tensor, "b d_in"]) -> Float[Tensor, "b num_classes"]:
        return self.net(x)


def accuracy(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"]) -> float:
    preds = logits.argmax(dim=1)
    return (preds == labels).float().mean().item()


def train_epoch(model: MLP, loader: DataLoader, optimizer: torch.optim.Optimizer) -> float:
    model.train()
    total, count = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        total += loss.item() * x.size(0)
        count += x.size(0)
    return total / max(count, 1)


@torch.no_grad()
def evaluate(model: MLP, x: Float[Tensor, "n d"], y: Int[Tensor, "n"]) -> Dict[str, float]:
    model.eval()
    logits = model(x)
    loss = F.cross_entropy(logits, y).item()
    probs = F.softmax(logits, dim=-1)
    confidence = probs.max(dim=-1).values.mean().item()
    return {"loss": loss, "accuracy": accuracy(logits, y), "confidence": confidence}


def binary_step(scores: Float[Tensor, "b 1"], targets: Int[Tensor, "b"]) -> Tensor:
    return F.binary_cross_entropy_with_logits(scores.squeeze(1), targets.float())


def regression_step(pred: Float[Tensor, "b 1"], y: Float[Tensor, "b"]) -> Tensor:
    return F.mse_loss(pred.squeeze(-1), y)


def sequence_loss(logits: Float[Tensor, "b t v"], targets: Int[Tensor, "b t"]) -> Tensor:
    return F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=-100)


def smoothed(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"], eps: float = 0.1) -> Tensor:
    n = logits.shape[-1]
    one_hot = F.one_hot(labels, num_classes=n).float()
    target = one_hot * (1 - eps) + eps / n
    return F.cross_entropy(logits, target)


def nll(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"]) -> Tensor:
    return F.nll_loss(F.log_softmax(logits, dim=1), labels)


def weighted(logits: Float[Tensor, "b c"], labels: Int[Tensor, "b"],
             weights: Float[Tensor, "c"]) -> Tensor:
    criterion = nn.CrossEntropyLoss(weight=weights, reduction="none")
    per_item = criterion(logits, labels)
    return per_item.mean()


def history_summary(history: List[float]) -> Tuple[float, float]:
    best = min(history) if history else float("inf")
    last = history[-1] if history else float("nan")
    return best, last


def main(config: Config) -> None:
    rng = np.random.default_rng(0)
    features = rng.normal(size=(1000, 20)).astype(np.float32)
    labels = rng.integers(0, config.num_classes, size=1000)
    dataset = ArrayDataset(features, labels)
    loader = DataLoader(dataset, batch_size=config.batch_size, shuffle=True)
    model = MLP(20, config.hidden, config.num_classes).to(config.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    history: List[float] = []
    for epoch in range(config.epochs):
        history.append(train_epoch(model, loader, optimizer))
    best, last = history_summary(history)
    metrics = evaluate(model, dataset.features, dataset.labels)
    print(f"best {best:.3f} last {last:.3f} acc {metrics['accuracy']:.2%}")
    if config.checkpoint is not None:
        torch.save(model.state_dict(), config.checkpoint)


if __name__ == "__main__":
    main(Config())
