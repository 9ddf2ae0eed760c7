"""The meaning layer: what a golden answer and a new one state, and how alike they are.

The default semantic check (:mod:`.verdict`) cuts both texts into units
(:mod:`.units`), aligns them, and compares the facts they state (:mod:`.facts`,
over the words of :mod:`.vocabulary`), their polarity, roles and steps
(:mod:`.clues`); :mod:`.hints` names the fact differences a raw score hides.
Scores come from a backend (:mod:`.backends`: onnx MiniLM, sentence-transformers,
lexical, a user's ``embed_fn``) whose model files :mod:`.models` finds and
checks; :mod:`.similarity` holds the two measures everything shares and
:mod:`.scores` the text of a value, thresholds and raw scores.

This package imports none of its modules: import the one you need.
"""
