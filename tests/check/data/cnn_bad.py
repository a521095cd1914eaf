"""Convolutional networks with the usual slips: channels, flattened sizes, skips, layouts."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)

    def forward(self, x: Float[Tensor, "b cin h w"]) -> Tensor:
        out = F.relu(self.bn1(self.conv1(x)))  # E: expected cin (num_features) [layer]
        return self.conv2(out) + x


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x: Float[Tensor, "b 1 28 28"]) -> Float[Tensor, "b 10"]:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        return self.fc2(F.relu(self.fc1(x)))  # E: has size 256, expected 400 [layer]


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: Float[Tensor, "b 3 h w"]) -> Float[Tensor, "b 10"]:
        x = self.pool(self.conv(x))
        return self.fc(x)  # E: expected 32 (in_features) [layer]


class UNetUp(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cout, kernel_size=2, stride=2)

    def forward(self, x: Float[Tensor, "b cin h w"],
                skip: Float[Tensor, "b cout h w"]) -> Tensor:
        x = self.up(x)
        return torch.cat([skip, x], dim=1)  # E: differ on axis 2 [concat]


def channels_last(images: Float[np.ndarray, "b h w 3"]) -> Tensor:
    conv = nn.Conv2d(3, 16, kernel_size=3)
    x = torch.from_numpy(images).float()
    return conv(x)  # E: expected 3 (in_channels) [layer]


def missing_batch(image: Float[Tensor, "3 h w"]) -> Tensor:
    bn = nn.BatchNorm2d(3)
    return bn(image)  # E: BatchNorm2d expects an input of layout [layer]


def pooled(x: Float[Tensor, "b 8 8 8"]) -> Float[Tensor, "b 8 1 1"]:
    pool = nn.MaxPool2d(2)
    return pool(pool(x))  # E: return value [return]


def too_small(x: Float[Tensor, "b 3 4 4"]) -> Tensor:
    conv = nn.Conv2d(3, 8, kernel_size=7)
    return conv(x)  # E: is too small for the window [layer]


def groups(x: Float[Tensor, "b 30 h w"]) -> Tensor:
    conv = nn.Conv2d(30, 64, 3, groups=4)  # E: not divisible by groups=4 [layer]
    return nn.GroupNorm(7, 30)(x)  # E: not divisible by num_groups=7 [layer]


def resize(x: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c h w"]:
    return F.interpolate(x, scale_factor=2)  # E: return value [return]
