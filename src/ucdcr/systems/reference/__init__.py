"""The built-in (reference) systems of ``ucdcr benchmark``, one module per family: :mod:`.head_lemma`
(``head-lemma``, ``lemma-baseline``), :mod:`.lemma_pairs`, :mod:`.embedding`, :mod:`.pairwise`,
:mod:`.cross_encoder` (``cross-encoder``, ``cross-encoder-3``) and :mod:`.ensemble` (``ensemble``, ``ensemble-3``).

Each is registered by one line of :data:`ucdcr.systems.framework.names.BUILTIN`. They are made of
:mod:`ucdcr.systems.parts` and the framework; this package imports none of its modules, so that a system's identity
(its code, :mod:`ucdcr.systems.framework.identity`) holds only what it imports.
"""
