"""What runs any benchmark system: the interface (:mod:`.base`: ``System``, ``SplitData``), the protocol adapter
(:mod:`.adapter`), the registry of names (:mod:`.registry`), the plan and the runner (:mod:`.plan`, :mod:`.runner`),
the predicted topics (:mod:`.topics`), the results store (:mod:`.store`), a system's identity (:mod:`.identity`),
what a run computes with beyond the code (:mod:`.environment`) and the encodings cache (:mod:`.cache`).

It imports no built-in system (:mod:`ucdcr.systems.reference`) and no part of one (:mod:`ucdcr.systems.parts`).
"""
