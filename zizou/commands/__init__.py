"""The `zizou X` subcommands, each a thin front end over the session and the packages it
names. Imported only when typed (`zizou.cli.SUBCOMMANDS`), so the main path stays fast."""
