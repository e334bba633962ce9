"""The one home of ast-grep's strictness levels (how closely a pattern must match)."""

from __future__ import annotations

from typing import Literal, get_args

Strictness = Literal["cst", "smart", "ast", "relaxed", "signature", "template"]
"""A strictness level, as ast-grep names it: ``cst`` matches every node, ``smart``
(the default) skips unnamed nodes of the code, ``ast`` all unnamed nodes,
``relaxed`` comments too, ``signature`` compares kinds only, ``template``
compares text only."""

STRICTNESS_LEVELS: tuple[Strictness, ...] = get_args(Strictness)
"""Every level, from the strictest, as the ``--strictness`` flag lists them."""

DEFAULT_STRICTNESS: Strictness = "smart"
"""The level ast-grep uses unless told otherwise."""

__all__ = ["DEFAULT_STRICTNESS", "STRICTNESS_LEVELS", "Strictness"]
