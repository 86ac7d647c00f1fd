"""One short declarative module per dataset (see :mod:`ucdcr.registry`)."""
