"""A small CIFAR-style convolutional classifier (correct)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class ConvNet(nn.Module):
    def __init__(self, n_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, kernel_size=3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(64 * 8 * 8, 256),
            nn.ReLU(),
            nn.Dropout(0.5),
            nn.Linear(256, n_classes),
        )

    def forward(self, x: Float[Tensor, "b 3 32 32"]) -> Float[Tensor, "b n_classes"]:
        return self.classifier(self.features(x))


def train_step(model: ConvNet, images: Float[Tensor, "b 3 32 32"],
               labels: Int[Tensor, "b"]) -> Tensor:
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    return loss


def main() -> None:
    model = ConvNet()
    images = torch.randn(16, 3, 32, 32)
    labels = torch.randint(0, 10, (16,))
    loss = train_step(model, images, labels)
    print(loss.item())
