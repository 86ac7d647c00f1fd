"""Format readers, one per source format, shared by every dataset in that format.

Each module docstring states the format it implements.
"""
