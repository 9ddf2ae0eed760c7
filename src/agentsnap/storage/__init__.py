"""Storage: what agentsnap keeps on disk, and how.

The snapshot model and its JSON (:mod:`.snapshot`), file names (:mod:`.naming`),
volatile fields and minted ids (:mod:`.volatile`), the store (:mod:`.store`),
the schema checked on load (:mod:`.schema`), tool values to JSON
(:mod:`.serialize`), secret scrubbing (:mod:`.scrub`), the stored exchange
(:mod:`.wire`), agentsnap 0.5.1 goldens (:mod:`.legacy`), orphaned goldens
(:mod:`.orphans`) and the atomic write (:mod:`.atomic`).

This package imports none of its modules: import the one you need.
"""
