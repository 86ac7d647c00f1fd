"""Readers and writers of the unified uCDCR format (ours and the authors' variants), and CoNLL export."""
