"""The web layer: one blueprint per area (count, peg, discard, matches, api) and shared helpers.

Views stay thin: they read forms, call ``scorer`` and ``store``, and render ``templates/``.
"""
