"""What the built-in systems are made of: lemma features and document similarity (:mod:`.features`), the lemmas of
the mentions' sentences (:mod:`.lemmas`), MiniLM vectors (:mod:`.vectors`), clustering and threshold tuning
(:mod:`.clustering`), candidate pairs (:mod:`.candidates`) and the transformer cross-encoder over pairs
(:mod:`.pair_encoder`). A user's system may use them too.

The parts import the framework (:mod:`ucdcr.systems.framework`), never a built-in system.
"""
