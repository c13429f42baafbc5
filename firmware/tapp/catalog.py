"""Every variant id of docs/rules and the presets (docs/rules 2.7: ``berliner``).

The tables are imported when a variant is first asked for, so a device that
plays Tapp never loads the Tarock and Herzblatt tables (docs/design.md: load only
the tables of the variant in play).
"""

# variant id -> (module of tapp, name of its table)
WHERE = {
    "wuerttemberg": ("variants", "WUERTTEMBERG"),
    "tapp_classic": ("variants", "TAPP_CLASSIC"),
    "tapp_modern": ("variants", "TAPP_MODERN"),
    "tarock_simple": ("tarock_tables", "TAROCK_SIMPLE"),
    "tarock_bettel": ("tarock_tables", "TAROCK_BETTEL"),
    "haferltarock": ("tarock_tables", "HAFERLTAROCK"),
    "scharfer_tarock": ("tarock_tables", "SCHARFER_TAROCK"),
    "herzblatt": ("herzblatt_tables", "HERZBLATT"),
    "herzblatt_muhr": ("herzblatt_tables", "HERZBLATT_MUHR"),
    "braun_solo": ("herzblatt_tables", "BRAUN_SOLO"),
}


# the table modules imported so far, by name: an import statement costs the
# Pico about 1 ms even for a module imported before (the setup asks for the
# variant's table at every question)
_MODULES = {}


def _load(vid):
    module, name = WHERE[vid]
    mod = _MODULES.get(module)
    if mod is None:
        if module == "variants":
            from . import variants as mod
        elif module == "tarock_tables":
            from . import tarock_tables as mod
        else:
            from . import herzblatt_tables as mod
        _MODULES[module] = mod
    return getattr(mod, name)


class _Tables:
    """A read-only mapping variant id -> table that imports on first use."""

    def __getitem__(self, vid):
        return _load(vid)

    def get(self, vid, default=None):
        return _load(vid) if vid in WHERE else default

    def __contains__(self, vid):
        return vid in WHERE

    def __iter__(self):
        return iter(WHERE)

    def __len__(self):
        return len(WHERE)


VARIANTS = _Tables()

# A preset id means its base variant with the preset's options (docs/record-format.md header).
PRESETS = {"berliner": ("haferltarock", {"berliner": True})}


def variant_ids():
    return sorted(list(WHERE) + list(PRESETS))


def base_variant(vid):
    """(the variant id whose table ``vid`` plays, the options a preset sets):
    (vid, {}) for a variant itself.  The options are a fresh dict."""
    if vid in PRESETS:
        base, options = PRESETS[vid]
        return base, dict(options)
    return vid, {}


def players_of(vid):
    """The numbers of players variant or preset ``vid`` is played by (a tuple;
    empty for an unknown id)."""
    base = base_variant(vid)[0]
    return tuple(VARIANTS[base]["players"]) if base in WHERE else ()
