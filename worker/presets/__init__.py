"""Paper setups: one name reproduces a published configuration and its comparison set.

A comparison set lists `Method`s: an algorithm and the settings its paper's code ran it
with (CA-Fed's scripts tune the learning rates per method). `fedwatch compare`, the
form's Compare button and experiments all expand a preset through `Preset.methods`.

`model.py` holds what a preset is, one module per paper (or family of setups) its
presets, and `catalogue.py` all of them by name.
"""

from worker.presets.catalogue import PRESETS, get_preset, references_for
from worker.presets.model import Method, Preset, Reference

__all__ = ["PRESETS", "Method", "Preset", "Reference", "get_preset", "references_for"]
