"""Built datasets in the formats of other tools, each written by that tool's own library where one exists.

- :mod:`ucdcr.export.conll`: CoNLL-2012 coreference files that the reference scorer v8.01 (and ``ucdcr score``) reads;
- :mod:`ucdcr.export.huggingface`: a Hugging Face ``DatasetDict`` and a dataset folder with its card (``hf`` extra);
- :mod:`ucdcr.export.spacy_docs`: spaCy ``Doc`` objects / a ``DocBin`` with the chains as span groups;
- :mod:`ucdcr.export.corefud`: CoNLL-U with CorefUD's ``Entity=`` annotation, written by udapi (``corefud`` extra).

They read a built dataset as the public API does (:func:`ucdcr.io.locate.dataset_dir` and :func:`~ucdcr.io.locate.load`,
which :mod:`ucdcr.api` re-exports), never through the API itself: exports sit below it.
"""
