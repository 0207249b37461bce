"""Sensitivity studies: a model parameter with no public value swept against the published
figures it would have to explain. Not reproductions: their rows decide nothing."""
