"""Tests of the content-filter selectors (issue 6): language, identifiers, bodies, speed-free."""
