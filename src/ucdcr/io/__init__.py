"""Reading and writing the unified uCDCR format (ours and the authors' variants): loading, the crash-safe folder
and file writers, strict UTF-8 text."""
