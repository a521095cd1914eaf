"""A U-Net decoder block: upsample, skip connection, convolutions (correct)."""
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Up(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.up = nn.ConvTranspose2d(c_in, c_out, kernel_size=2, stride=2)
        self.conv = nn.Sequential(
            nn.Conv2d(2 * c_out, c_out, kernel_size=3, padding=1),
            nn.BatchNorm2d(c_out),
            nn.ReLU(),
        )

    def forward(self, x: Float[Tensor, "b c_in h w"],
                skip: Float[Tensor, "b c_out 2*h 2*w"]) -> Float[Tensor, "b c_out 2*h 2*w"]:
        x = self.up(x)
        x = torch.cat([x, skip], dim=1)
        return self.conv(x)
