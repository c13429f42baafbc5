"""``tapptable``: the host command-line program (one subcommand per job)."""
