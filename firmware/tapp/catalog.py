"""Every variant id of docs/rules and the presets (docs/rules 2.7: ``berliner``)."""
from . import herzblatt_tables as HB
from . import tarock_tables as TT
from .variants import TAPP_CLASSIC, TAPP_MODERN, WUERTTEMBERG

VARIANTS = {
    "wuerttemberg": WUERTTEMBERG,
    "tapp_classic": TAPP_CLASSIC,
    "tapp_modern": TAPP_MODERN,
    "tarock_simple": TT.TAROCK_SIMPLE,
    "tarock_bettel": TT.TAROCK_BETTEL,
    "haferltarock": TT.HAFERLTAROCK,
    "scharfer_tarock": TT.SCHARFER_TAROCK,
    "herzblatt": HB.HERZBLATT,
    "herzblatt_muhr": HB.HERZBLATT_MUHR,
    "braun_solo": HB.BRAUN_SOLO,
}

# A preset id means its base variant with the preset's options (docs/record-format.md header).
PRESETS = {"berliner": ("haferltarock", {"berliner": True})}


def variant_ids():
    return sorted(list(VARIANTS) + list(PRESETS))
