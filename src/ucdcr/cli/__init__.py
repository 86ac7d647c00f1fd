"""The command-line interface: one thin module per command (parse options, call the library, print)."""
