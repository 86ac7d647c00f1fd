"""Where data come from: raw files fetched by their manifests (:mod:`~ucdcr.sources.download`), the authors'
release from the Hugging Face Hub or a copy (:mod:`~ucdcr.sources.release`, :mod:`~ucdcr.sources.hub`,
:mod:`~ucdcr.sources.install`), and the datasets a data dir holds (:mod:`~ucdcr.sources.discover`)."""
