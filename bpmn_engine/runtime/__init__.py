"""Instances, tracks, scopes and the behaviours that move tokens."""
