"""Pretrained models of libraries, modelled by hand (layer 6: ``check.rules``).

Diffusion and text-to-3D code is built of objects the checked project does not
define: a diffusers pipeline, its UNet, VAE and scheduler, a transformers text
encoder and tokenizer. Their shapes follow simple rules that hold for every
configuration, which are all this module says (a :class:`LibV` of each):

- ``unet(sample, t, encoder_hidden_states=...).sample`` has the batch and the
  spatial axes of ``sample`` (its channels are the model's: a DeepFloyd IF UNet
  gives twice its input's);
- ``vae.encode(x).latent_dist.sample()`` and ``vae.decode(z).sample`` keep the
  batch and the rank; ``scheduler.add_noise(x, noise, t)``,
  ``scale_model_input(x, t)`` and ``step(eps, t, x).prev_sample`` are shaped as
  ``x``;
- ``text_encoder(ids)[0]`` is ``(batch, tokens, width)`` and a CLIP text
  encoder's ``[1]`` (its pooled output) ``(batch, width)``; a tokenizer's
  ``input_ids`` with ``return_tensors="pt"`` is a matrix of int64;
  ``pipe.prepare_latents(batch, channels, ...)`` is ``(batch, channels, ?, ?)``.

They are made by a call of the class or of its ``from_pretrained``, reached
through a pipeline (``pipe.unet``), or given by an annotation
(``vae: AutoencoderKL``).

The sizes a model's configuration decides (channels, latent sizes, widths) are
unknown. What every configuration requires is checked: a UNet's timesteps are
one or one per sample, and its ``encoder_hidden_states`` have the sample's batch
(or one for all); a scheduler's ``add_noise`` adds arrays that broadcast, with
one timestep or one per sample, and ``step`` combines a model output with a
sample of its batch and spatial sizes (only the channels may differ: a learned
variance doubles them). The other errors are where the code uses these values
against its own arrays (a doubled batch compared with the single one, a pooled
output for a per-token annotation).

>>> made_by("diffusers.StableDiffusionPipeline.from_pretrained").kind
'pipeline'
>>> attribute(LibV("pipeline"), "unet").kind
'unet'
"""

from __future__ import annotations

from tensortypes.core import dims
from tensortypes.core.dims import Dim
from tensortypes.core.dtypes import int64

from ..diagnostics import CheckFailure
from ..symbolic import (
    NONE,
    UNKNOWN,
    Arr,
    BoolV,
    IntV,
    LibV,
    MethodV,
    StrV,
    TupleV,
    fmt_dim,
    fmt_shape,
    is_one,
)

from .shapefns import broadcast

__all__ = ["made_by", "attribute", "call", "field", "ROOTS"]

ROOTS = ("diffusers", "transformers")

_BUILDERS = frozenset({"from_pretrained", "from_config", "from_single_file"})
_SELF = frozenset({"to", "eval", "train", "half", "float", "double", "cuda", "cpu"})
_SELF_MODELS = frozenset({"pipeline", "unet", "vae", "text_encoder", "clip_text"})
_METHODS = {
    "pipeline": frozenset({"prepare_latents"}),
    "unet": frozenset({"forward"}),
    "vae": frozenset({"encode", "decode"}),
    "text_encoder": frozenset({"forward"}),
    "clip_text": frozenset({"forward"}),
    "scheduler": frozenset({"add_noise", "scale_model_input", "step", "set_timesteps"}),
    "latent_dist": frozenset({"sample", "mode"}),
}
_PIPELINE_PARTS = {
    "unet": "unet",
    "vae": "vae",
    "scheduler": "scheduler",
    "text_encoder": "text_encoder",
    "tokenizer": "tokenizer",
}
_LATENT_SIZES = ((0, "batch_size"), (1, "num_channels_latents"))
_SCHEDULE = ("alphas_cumprod", "alphas", "betas", "sigmas", "timesteps")


def _class_kind(root: str, name: str) -> str | None:
    if root == "diffusers":
        if name.endswith("Pipeline"):
            return "pipeline"
        if name in ("UNet2DConditionModel", "UNet2DModel"):
            return "unet"
        if name == "AutoencoderKL":
            return "vae"
        if name.endswith("Scheduler"):
            return "scheduler"
        return None
    if name in ("CLIPTextModel", "CLIPTextModelWithProjection"):
        return "clip_text"
    if name == "T5EncoderModel":
        return "text_encoder"
    if name.endswith(("Tokenizer", "TokenizerFast")):
        return "tokenizer"
    return None


def made_by(path: str) -> LibV | None:
    """The object a call of library ``path`` makes (``Cls(...)``,
    ``Cls.from_pretrained(...)``), or None when this module does not model it."""
    parts = path.split(".")
    if parts[0] not in ROOTS or len(parts) < 2:
        return None
    name = parts[-2] if parts[-1] in _BUILDERS and len(parts) > 2 else parts[-1]
    kind = _class_kind(parts[0], name)
    return None if kind is None else LibV(kind)


def field(record: LibV, key):
    """Field ``key`` (a name, or a position) of a record, or UNKNOWN (a record may
    have fields the model leaves out: ``output_hidden_states=True`` adds some)."""
    for i, (name, value) in enumerate(record.fields):
        if key == name or key == i:
            return value
    return UNKNOWN


def attribute(lib: LibV, attr: str):
    """``pipe.unet``, ``scheduler.alphas_cumprod``, ``out.sample``, ``unet.eval``..."""
    kind = lib.kind
    if (kind in _SELF_MODELS and attr in _SELF) or attr in _METHODS.get(kind, ()):
        return MethodV(lib, attr)
    if kind == "latent_dist" and attr in ("std", "var", "logvar"):
        return field(lib, "mean")
    if lib.fields:
        return field(lib, attr)
    if kind == "pipeline" and attr in _PIPELINE_PARTS:
        return LibV(_PIPELINE_PARTS[attr])
    if kind == "scheduler" and attr in _SCHEDULE:
        # one value per training step (the dtype of ``timesteps`` is the scheduler's:
        # int64 for DDIM, float32 for Euler)
        return Arr("torch", None, (None,))
    return UNKNOWN


def _array(args: list, kwargs: dict, at: int, name: str):
    value = args[at] if len(args) > at else kwargs.get(name)
    return value if type(value) is Arr else None


def _label(labels, args: list, at: int, name: str) -> str:
    key = at if len(args) > at else name
    return labels.get(key, name) if labels is not None else name


def _shape(x: Arr | None):
    """``x``'s shape when every axis is a size or unknown (no ``...``), else None."""
    if x is None or x.shape is None or any(d is not None and type(d) is not Dim for d in x.shape):
        return None
    return x.shape


def _apart(a: Dim, b: Dim) -> bool:
    """Whether two sizes differ and neither is 1 (a size named in an annotation is not
    1 unless marked ``#``, as for broadcasting): provably, as one a multiple of the
    other (``B*copies`` and ``B``), or as two expressions of the same sizes (``2*B``
    and ``B``). Two names (``BB`` and ``2*B``) may be one size: a library's own
    requirement is reported only where the code itself makes the sizes differ."""
    if a is b or is_one(a) or is_one(b):
        return False
    same = dims.eq(a, b)
    if same is not None:
        return not same
    if _multiple(a, b) or _multiple(b, a):
        return True  # ``B*L`` and ``B``: equal only when the other sizes are 1
    return bool(a.free_symbols) and a.free_symbols == b.free_symbols


def _multiple(a: Dim, b: Dim) -> bool:
    """Whether ``a`` is ``b`` times a product of sizes, or of a constant above 1."""
    q = a // b
    if dims.eq(q * b, a) is not True:
        return False
    if q.is_constant:
        return q.value is not None and q.value > 1
    return not any(c in str(q) for c in "+-/%(")  # a product of sizes


def _per_sample(what: str, t: Arr | None, t_label: str, batch, x_label: str, problems) -> None:
    """Timesteps ``t`` are one number, or one per sample of a batch of ``batch``."""
    shape = _shape(t)
    if shape is None or len(shape) != 1 or shape[0] is None or batch is None:
        return
    if _apart(shape[0], batch):
        problems.append(
            CheckFailure(
                "broadcast",
                f"{what}: {t_label} has {fmt_dim(shape[0])} timesteps for the {fmt_dim(batch)} "
                f"samples of {x_label}: give one, or one per sample",
            )
        )


def _same_axes(what, a: Arr | None, a_label, b: Arr | None, b_label, axes, why, problems):
    """Axes ``axes`` of ``a`` and ``b`` (same rank) are one size, or 1 in one of them."""
    sa, sb = _shape(a), _shape(b)
    if sa is None or sb is None or len(sa) != len(sb):
        return
    for i in axes:
        if i >= len(sa):
            break
        if sa[i] is not None and sb[i] is not None and _apart(sa[i], sb[i]):
            problems.append(
                CheckFailure(
                    "broadcast",
                    f"{what}: {a_label} {fmt_shape(sa)} and {b_label} {fmt_shape(sb)} differ "
                    f"on axis {i} ({fmt_dim(sa[i])} vs {fmt_dim(sb[i])}): {why}",
                )
            )
            return


def _like(x: Arr | None, keep=None) -> Arr:
    """An array of ``x``'s batch and rank (and the axes ``keep`` names), the others
    unknown; of unknown shape when ``x``'s is."""
    if x is None or x.shape is None or not x.shape or any(type(d) is not Dim for d in x.shape):
        return Arr(x.kind if x is not None else "torch", None, None)
    shape = tuple(
        d if i == 0 or (keep is not None and i in keep) else None for i, d in enumerate(x.shape)
    )
    return Arr(x.kind, None, shape)


def _same(x: Arr | None) -> Arr:
    if x is None:
        return Arr("torch", None, None)
    return Arr(x.kind, x.dtypes, x.shape)


def _unwrapped(record: LibV, kwargs: dict):
    """``return_dict=False`` gives the record's values as a tuple."""
    flag = kwargs.get("return_dict")
    if type(flag) is BoolV and flag.value is False:
        return TupleV(tuple(v for _n, v in record.fields))
    return record


def call(lib: LibV, name: str, args: list, kwargs: dict, labels=None, problems=None):
    """``lib(...)`` (``name`` is ``"__call__"``) or ``lib.name(...)``; ``labels``: the
    arguments' source text, by position and keyword, for messages. What the call
    requires and these arguments break is added to ``problems`` (CheckFailure); the
    result is what the call gives all the same (the error is reported once, where
    it is, and the code after it is still checked)."""
    problems = [] if problems is None else problems
    kind = lib.kind
    if name in _SELF and kind in _SELF_MODELS:
        return lib
    if name == "forward":
        name = "__call__"
    if kind == "unet" and name == "__call__":
        x = _array(args, kwargs, 0, "sample")
        x_label = _label(labels, args, 0, "sample")
        shape = _shape(x)
        batch = shape[0] if shape else None
        t_label = _label(labels, args, 1, "timestep")
        t = _array(args, kwargs, 1, "timestep")
        _per_sample("unet", t, t_label, batch, x_label, problems)
        text = _shape(_array(args, kwargs, 2, "encoder_hidden_states"))
        if batch is not None and text and text[0] is not None and _apart(text[0], batch):
            problems.append(
                CheckFailure(
                    "broadcast",
                    f"unet: {_label(labels, args, 2, 'encoder_hidden_states')} "
                    f"{fmt_shape(text)} has a batch of {fmt_dim(text[0])}, {x_label} one of "
                    f"{fmt_dim(batch)}: cross-attention needs a text embedding per sample",
                )
            )
        rank = None if x is None or x.shape is None else len(x.shape)
        out = _like(x, keep=range(2, rank) if rank else None)
        return _unwrapped(LibV("UNet2DConditionOutput", (("sample", out),)), kwargs)
    if kind in ("clip_text", "text_encoder") and name == "__call__":
        ids = _array(args, kwargs, 0, "input_ids")
        if ids is None or ids.shape is None or len(ids.shape) != 2:
            return UNKNOWN
        last = Arr(ids.kind, None, (ids.shape[0], ids.shape[1], None))
        fields: tuple = (("last_hidden_state", last),)
        if kind == "clip_text":
            fields += (("pooler_output", Arr(ids.kind, None, (ids.shape[0], None))),)
        return _unwrapped(LibV("BaseModelOutput", fields), kwargs)
    if kind == "pipeline" and name == "prepare_latents":
        # ``(batch_size, num_channels_latents, height // f, width // f)`` for the VAE's
        # scale factor ``f``
        sizes = [args[i] if len(args) > i else kwargs.get(n) for i, n in _LATENT_SIZES]
        lead = tuple(v.dim if type(v) is IntV else None for v in sizes)
        return Arr("torch", None, (*lead, None, None))
    if kind == "tokenizer" and name == "__call__":
        wanted = kwargs.get("return_tensors")
        if type(wanted) is not StrV or wanted.value != "pt":
            return UNKNOWN
        ids = Arr("torch", frozenset({int64}), (None, None))
        return LibV("BatchEncoding", (("input_ids", ids), ("attention_mask", ids)))
    if kind == "vae" and name == "encode":
        latents = _like(_array(args, kwargs, 0, "x"))
        dist = LibV("latent_dist", (("mean", latents),))
        return _unwrapped(LibV("AutoencoderKLOutput", (("latent_dist", dist),)), kwargs)
    if kind == "vae" and name == "decode":
        image = _like(_array(args, kwargs, 0, "z"))
        return _unwrapped(LibV("DecoderOutput", (("sample", image),)), kwargs)
    if kind == "latent_dist" and name in ("sample", "mode"):
        return field(lib, "mean")
    if kind == "scheduler":
        if name == "add_noise":
            x = _array(args, kwargs, 0, "original_samples")
            noise = _array(args, kwargs, 1, "noise")
            x_label = _label(labels, args, 0, "original_samples")
            shape = _shape(x)
            _per_sample(
                "add_noise",
                _array(args, kwargs, 2, "timesteps"),
                _label(labels, args, 2, "timesteps"),
                shape[0] if shape else None,
                x_label,
                problems,
            )
            if shape is not None and _shape(noise) is not None:
                try:
                    joint = broadcast(
                        [shape, _shape(noise)], [x_label, _label(labels, args, 1, "noise")]
                    )
                except CheckFailure as failure:  # the noise is added to the samples
                    problems.append(failure)
                    return _same(x)
                return Arr(x.kind, x.dtypes, joint)
            return _same(x)
        if name == "scale_model_input":
            return _same(_array(args, kwargs, 0, "sample"))
        if name == "step":
            _same_axes(
                "step",
                _array(args, kwargs, 0, "model_output"),
                _label(labels, args, 0, "model_output"),
                _array(args, kwargs, 2, "sample"),
                _label(labels, args, 2, "sample"),
                (0, *range(2, 8)),
                "a scheduler step combines the model output with the sample elementwise "
                "(only the channels may differ)",
                problems,
            )
            x = _same(_array(args, kwargs, 2, "sample"))
            record = LibV("SchedulerOutput", (("prev_sample", x), ("pred_original_sample", x)))
            flag = kwargs.get("return_dict")
            return UNKNOWN if type(flag) is BoolV and flag.value is False else record
        if name == "set_timesteps":
            return NONE
    return UNKNOWN
