"""The build pipeline, one straight line: read -> detokenize -> parse -> align -> enrich -> validate -> write."""
