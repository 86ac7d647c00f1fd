"""Built datasets in the formats of other tools, each written by that tool's own library where one exists.

- :mod:`ucdcr.export.conll`: CoNLL-2012 coreference files that the reference scorer v8.01 (and ``ucdcr score``) reads;
- :mod:`ucdcr.export.huggingface`: a Hugging Face ``DatasetDict`` and a dataset folder with its card (``hf`` extra);
- :mod:`ucdcr.export.spacy_docs`: spaCy ``Doc`` objects / a ``DocBin`` with the chains as span groups;
- :mod:`ucdcr.export.corefud`: CoNLL-U with CorefUD's ``Entity=`` annotation, written by udapi (``corefud`` extra).

They find a dataset's folder once, as the public API does (:func:`ucdcr.sources.discover.dataset_dir`, which
:mod:`ucdcr.api` re-exports), and read that folder (:func:`ucdcr.io.load.read_table`, or whole with
:func:`ucdcr.io.contents.read_contents`), never through the API itself: exports sit below it.
"""
