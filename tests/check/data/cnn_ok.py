"""Convolutional networks written the usual way: residual blocks, U-Net skips, heads."""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def conv3x3(cin: int, cout: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(cout),
            )

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)


class SmallResNet(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.layer1 = BasicBlock(32, 32)
        self.layer2 = BasicBlock(32, 64, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: Float[Tensor, "b 3 h w"]) -> Float[Tensor, "b num_classes"]:
        x = self.stem(x)
        x = self.layer2(self.layer1(x))
        x = self.pool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x: Float[Tensor, "b 1 28 28"]) -> Float[Tensor, "b 10"]:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class DoubleConv(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        )

    def forward(self, x: Float[Tensor, "b cin h w"]) -> Float[Tensor, "b cout h w"]:
        return self.net(x)


class UNetUp(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        assert cin % 2 == 0, "the skip connection has half the channels"
        self.up = nn.ConvTranspose2d(cin, cin // 2, kernel_size=2, stride=2)
        self.conv = DoubleConv(cin, cout)

    def forward(self, x: Float[Tensor, "b cin h w"],
                skip: Float[Tensor, "b cin//2 2*h 2*w"]) -> Float[Tensor, "b cout 2*h 2*w"]:
        x = self.up(x)
        x = torch.cat([skip, x], dim=1)
        return self.conv(x)


class Classifier(nn.Module):
    def __init__(self, channels: List[int], num_classes: int):
        super().__init__()
        layers = []
        for cin, cout in zip(channels[:-1], channels[1:]):
            layers.append(nn.Conv2d(cin, cout, 3, padding=1))
            layers.append(nn.ReLU())
            layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels[-1], num_classes)

    def forward(self, x: Tensor) -> Tensor:
        x = self.features(x)
        x = x.mean(dim=(2, 3))
        return self.head(x)


def same_padding(x: Float[Tensor, "b 16 h w"]) -> Float[Tensor, "b 16 h w"]:
    conv = nn.Conv2d(16, 16, kernel_size=5, padding="same")
    return conv(x)


def grouped(x: Float[Tensor, "b 32 h w"]) -> Float[Tensor, "b 64 h w"]:
    depthwise = nn.Conv2d(32, 32, 3, padding=1, groups=32)
    pointwise = nn.Conv2d(32, 64, 1)
    return pointwise(depthwise(x))


def norm_groups(x: Float[Tensor, "b 64 h w"]) -> Float[Tensor, "b 64 h w"]:
    return nn.GroupNorm(8, 64)(x)


def upsample(x: Float[Tensor, "b c h w"]) -> Tensor:
    return F.interpolate(x, scale_factor=2, mode="nearest")


def batch_images(images: List[Float[Tensor, "3 h w"]]) -> Tensor:
    return torch.stack(images, dim=0)


def main() -> None:
    model = SmallResNet(num_classes=100)
    logits = model(torch.randn(8, 3, 32, 32))
    net = LeNet()
    out = net(torch.randn(4, 1, 28, 28))
    up = UNetUp(128, 64)
    y = up(torch.randn(2, 128, 16, 16), torch.randn(2, 64, 32, 32))
