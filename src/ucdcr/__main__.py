"""`python -m ucdcr` runs the command-line interface."""

from ucdcr.cli.app import main

if __name__ == "__main__":
    main()
