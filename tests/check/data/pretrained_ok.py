"""The correct twin of ``pretrained_bad.py``: no error."""

from __future__ import annotations

import torch
from diffusers import DDIMScheduler, DDPMScheduler, StableDiffusionPipeline
from jaxtyping import Float, Int
from torch import Tensor, nn
from transformers import AutoTokenizer, CLIPTextModel


class Guidance(nn.Module):
    def __init__(self, path: str, sjc: bool):
        super().__init__()
        self.pipe = StableDiffusionPipeline.from_pretrained(path).to("cpu")
        self.vae = self.pipe.vae.eval()
        self.unet = self.pipe.unet.eval()
        if sjc:
            self.scheduler = DDPMScheduler.from_pretrained(path, subfolder="scheduler")
        else:
            self.scheduler = DDIMScheduler.from_pretrained(path, subfolder="scheduler")
        self.tokenizer = AutoTokenizer.from_pretrained(path, subfolder="tokenizer")
        self.text_encoder = CLIPTextModel.from_pretrained(path, subfolder="text_encoder")

    def forward_unet(
        self, latents: Float[Tensor, "..."], t: Float[Tensor, "..."], text: Float[Tensor, "..."]
    ) -> Float[Tensor, "..."]:
        return self.unet(latents, t, encoder_hidden_states=text).sample.to(latents.dtype)

    def encode_images(self, imgs: Float[Tensor, "B 3 512 512"]) -> Float[Tensor, "B 4 64 64"]:
        posterior = self.vae.encode(imgs).latent_dist
        latents = posterior.sample() * 0.18215
        return latents

    def decode_latents(self, latents: Float[Tensor, "B 4 H W"]) -> Float[Tensor, "B 3 512 512"]:
        image = self.vae.decode(latents / 0.18215).sample
        return image

    def text_embeddings(self, prompts: list[str]) -> Float[Tensor, "B 77 768"]:
        tokens = self.tokenizer(prompts, padding="max_length", max_length=77, return_tensors="pt")
        return self.text_encoder(tokens.input_ids)[0]

    def grad_sds(
        self,
        latents: Float[Tensor, "B 4 64 64"],
        t: Int[Tensor, "B"],
        text: Float[Tensor, "BB 77 768"],
    ) -> Float[Tensor, "B 4 64 64"]:
        noise = torch.randn_like(latents)
        noisy = self.scheduler.add_noise(latents, noise, t)
        x = torch.cat([noisy] * 2)
        noise_pred = self.forward_unet(x, torch.cat([t] * 2).float(), text)
        text_pred, uncond_pred = noise_pred.chunk(2)
        guided = uncond_pred + 7.5 * (text_pred - uncond_pred)
        return guided - noise

    def grad_perp(self, latents: Float[Tensor, "B 4 64 64"], t: Int[Tensor, "B"], text: Float[Tensor, "BB 77 768"]):
        x = torch.cat([latents] * 4)
        return self.forward_unet(x, torch.cat([t] * 4).float(), text)

    def unet_direct(self, latents: Float[Tensor, "B 4 64 64"], t: Int[Tensor, "B"], text: Float[Tensor, "B 77 768"]):
        x = torch.cat([latents] * 2)
        return self.unet(x, torch.cat([t] * 2), encoder_hidden_states=torch.cat([text] * 2)).sample

    def unet_text_batch(self, latents: Float[Tensor, "B 4 64 64"], text: Float[Tensor, "B 77 768"]):
        x = torch.cat([latents] * 2)
        return self.unet(x, 10, encoder_hidden_states=torch.cat([text] * 2), return_dict=False)[0]

    def noised(self, latents: Float[Tensor, "B 4 64 64"], t: Int[Tensor, "B"]):
        noise = torch.randn_like(latents)
        return self.scheduler.add_noise(latents, noise, t)

    def denoise(self, latents: Float[Tensor, "B 4 64 64"], text: Float[Tensor, "BB 77 768"]):
        self.scheduler.set_timesteps(50)
        for t in self.scheduler.timesteps:
            x = torch.cat([latents] * 2)
            noise_pred = self.forward_unet(x, t, text)
            eps_text, eps_uncond = noise_pred.chunk(2)
            latents = self.scheduler.step(eps_uncond + 7.5 * (eps_text - eps_uncond), t, latents).prev_sample
        return latents


class PromptProcessor:
    """The text encoder is set by a method only (no construction sets it): what the
    method assigns is what the other methods read."""

    def __init__(self, path: str) -> None:
        self.path = path

    def configure_text_encoder(self) -> None:
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, subfolder="tokenizer")
        self.text_encoder = CLIPTextModel.from_pretrained(self.path).to("cpu")

    def get_text_embeddings(self, prompts: list[str]) -> Float[Tensor, "B 77 768"]:
        tokens = self.tokenizer(prompts, padding="max_length", max_length=77, return_tensors="pt")
        return self.text_encoder(tokens.input_ids)[0]


def initial_latents(pipe: StableDiffusionPipeline, text: Float[Tensor, "B 77 768"], n: int) -> Float[Tensor, "B 4 H W"]:
    """A parameter annotated with a pipeline class is that pipeline."""
    return pipe.prepare_latents(text.shape[0], 4, 512, 512, torch.float32, "cpu", None)


def noised_copies(
    scheduler: DDPMScheduler, latents: Float[Tensor, "B 4 64 64"], t: Int[Tensor, "B"], copies: int
) -> Float[Tensor, "..."]:
    """``B*copies`` samples and ``B`` timesteps: equal only for one copy."""
    latents = latents.repeat(copies, 1, 1, 1)
    return scheduler.add_noise(latents, torch.randn_like(latents), t.repeat(copies))
